import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpError } from '../../../../errors/http-error.js';
import { readJsonObject } from '../../../../http/body.js';
import type { Handler, RequestContext } from '../../../../http/context.js';
import { sendJson, sendNoContent } from '../../../../http/respond.js';
import type { Router } from '../../../../http/router.js';
import { ifMatch, tagMatches } from '../../../../users/rules/etag.js';
import type { EndpointDirectory } from '../../endpoint-directory.js';
import type { EndpointHistory } from '../endpoint-history.js';
import { endpointJson, endpointTag, newSecret, type EndpointRecord } from '../endpoint-record.js';
import { WindowTooOld, type EndpointRecovery } from '../endpoint-recovery.js';
import type { EndpointStore } from '../endpoint-store.js';
import { attemptQuery, nextPageQuery } from './attempts-query.js';
import { creation, merged, recoveryWindow, rotation, type UrlRules } from './endpoint-input.js';

export interface EndpointRouteDeps {
  store: EndpointStore;
  history: EndpointHistory;
  recovery: EndpointRecovery;
  directory: EndpointDirectory;
  /** Resolves once WEBHOOK_URLS's endpoints are listed. */
  listed: Promise<void>;
  /** The keys of this instance's WEBHOOK_URLS endpoints: those of the environment it lists. */
  environment: ReadonlySet<string>;
  rules: UrlRules;
  /** AUTH's check: a token with webhooks:admin. */
  admin: (handler: Handler) => Handler;
}

const BASE = '/api/webhooks/endpoints';
const notFound = new HttpError(404, 'Webhook endpoint not found');
const fromEnvironment = new HttpError(409, 'This endpoint is set by WEBHOOK_URLS (its secret is WEBHOOK_SECRET): the operator changes it there');
const preconditionFailed = new HttpError(412, 'Precondition failed: the endpoint has changed');
const eventNotFound = new HttpError(404, "Event not found: it is not kept, or not of this endpoint's event_types");
/** How long a removal or a disabling waits, at most, for the process delivering to the endpoint to stop: past the lease's expiry. */
const STOP_WAIT_MS = 16_000;

/** `/api/webhooks/endpoints`: integrators' endpoints, their secrets, attempts and recovery. */
export function registerEndpointRoutes(router: Router<Handler>, deps: EndpointRouteDeps): void {
  const { store, history, recovery, directory, rules, admin } = deps;
  const byId = { id: (segment: string) => /^[1-9]\d{0,15}$/.test(segment) };
  const visible = (record: EndpointRecord | undefined): record is EndpointRecord => record !== undefined && (record.source === 'api' || deps.environment.has(record.endpoint));

  const endpointOf = async ({ params }: RequestContext): Promise<EndpointRecord> => {
    await deps.listed;
    const record = await store.get(Number(params.id));
    if (!visible(record)) throw notFound;
    return record;
  };
  const apiEndpointOf = async (ctx: RequestContext): Promise<EndpointRecord> => {
    const record = await endpointOf(ctx);
    if (record.source !== 'api') throw fromEnvironment;
    return record;
  };
  /** Nothing more is sent to the endpoint once this resolves: this process follows the change, and no other holds its lease. */
  const stopped = async (record: EndpointRecord): Promise<void> => {
    await directory.refresh();
    const deadline = performance.now() + STOP_WAIT_MS;
    while ((await store.delivered(record)) && performance.now() < deadline) await sleep(100);
  };
  const sendEndpoint = (res: ServerResponse, status: number, record: EndpointRecord, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): void =>
    sendJson(res, status, JSON.stringify({ ...endpointJson(record), ...extra }), { ETag: endpointTag(record), ...headers });

  router.add('POST', BASE, admin(async ({ req, res }) => {
    const { settings, secret } = creation(await readJsonObject(req, res), rules);
    const key = secret ?? newSecret();
    const record = await store.create(settings, key);
    await directory.refresh();
    sendEndpoint(res, 201, record, { secret: key }, { Location: `${BASE}/${record.id}` });
  }));

  router.add('GET', BASE, admin(async ({ res }) => {
    await deps.listed;
    sendJson(res, 200, JSON.stringify((await store.all()).filter(visible).map(endpointJson)));
  }));

  router.add('GET', `${BASE}/:id`, admin(async (ctx) => sendEndpoint(ctx.res, 200, await endpointOf(ctx))), byId);

  router.add('PATCH', `${BASE}/:id`, admin(async (ctx) => {
    const body = await readJsonObject(ctx.req, ctx.res);
    const precondition = ifMatch(ctx.req.headers['if-match']);
    for (;;) {
      const record = await apiEndpointOf(ctx);
      if (precondition && !tagMatches(precondition, endpointTag(record))) throw preconditionFailed;
      const settings = merged(record, body, rules);
      if (!(await store.update(record, settings, record.version))) {
        if (precondition) throw preconditionFailed;
        continue;
      }
      if (settings.disabled && !record.disabled) await stopped(record);
      else await directory.refresh();
      return sendEndpoint(ctx.res, 200, (await store.get(record.id))!);
    }
  }), byId);

  router.add('DELETE', `${BASE}/:id`, admin(async (ctx) => {
    const record = await apiEndpointOf(ctx);
    await store.forget(record);
    await stopped(record);
    await store.purge(record);
    sendNoContent(ctx.res);
  }), byId);

  router.add('GET', `${BASE}/:id/secret`, admin(async (ctx) => {
    const record = await apiEndpointOf(ctx);
    sendJson(ctx.res, 200, JSON.stringify({ key: await store.secret(record.id) }));
  }), byId);

  router.add('POST', `${BASE}/:id/secret/rotate`, admin(async (ctx) => {
    const record = await apiEndpointOf(ctx);
    const { key, graceSeconds } = rotation(await optionalJsonObject(ctx.req, ctx.res));
    const next = key ?? newSecret();
    if (!(await store.rotate(record.id, { key: next, graceSeconds }))) throw notFound;
    await directory.refresh();
    sendJson(ctx.res, 200, JSON.stringify({ key: next }));
  }), byId);

  router.add('GET', `${BASE}/:id/attempts`, admin(async (ctx) => {
    const query = attemptQuery(ctx.query);
    const record = await endpointOf(ctx);
    const page = await history.attempts(record.endpoint, query);
    const link: Record<string, string> = page.next === undefined ? {} : { Link: `<${BASE}/${record.id}/attempts?${nextPageQuery(ctx.query, page.next)}>; rel="next"` };
    sendJson(ctx.res, 200, JSON.stringify(page.attempts), link);
  }), byId);

  router.add('GET', `${BASE}/:id/stats`, admin(async (ctx) => {
    const record = await endpointOf(ctx);
    sendJson(ctx.res, 200, JSON.stringify(await history.stats(record.endpoint)));
  }), byId);

  router.add('POST', `${BASE}/:id/recover`, admin(async (ctx) => {
    const record = await endpointOf(ctx);
    const { since, until } = recoveryWindow(await readJsonObject(ctx.req, ctx.res));
    try {
      sendJson(ctx.res, 202, JSON.stringify({ events: await recovery.recover(record, since, until) }));
    } catch (error) {
      if (error instanceof WindowTooOld) throw new HttpError(400, `since is older than the events kept: they go back to ${error.keptSince} (EVENTS_RETENTION)`);
      throw error;
    }
  }), byId);

  router.add('POST', `${BASE}/:id/events/:event_id/resend`, admin(async (ctx) => {
    const record = await endpointOf(ctx);
    if (!(await recovery.resend(record, Number(ctx.params.event_id)))) throw eventNotFound;
    sendJson(ctx.res, 202, JSON.stringify({ events: 1 }));
  }), { ...byId, event_id: (segment: string) => /^[1-9]\d{0,15}$/.test(segment) });
}

/** A JSON object body, or an empty one when the request has none (a rotation takes its defaults). */
function optionalJsonObject(req: IncomingMessage, res: ServerResponse): Promise<Record<string, unknown>> {
  const empty = req.headers['content-length'] === '0' || (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined);
  return empty ? Promise.resolve({}) : readJsonObject(req, res);
}
