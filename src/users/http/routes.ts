import type { ServerResponse } from 'node:http';
import { HttpError } from '../../errors/http-error.js';
import { messages } from '../../errors/messages.js';
import { readJsonObject } from '../../http/body.js';
import type { Handler, RequestContext } from '../../http/context.js';
import { sendJson, sendNotModified } from '../../http/respond.js';
import type { Router } from '../../http/router.js';
import type { UserAccess } from './access.js';
import { userNotFound as updateMissing, type CompatErrors } from './compat.js';
import type { WriteOutcome } from '../storage/conditional-writes.js';
import { etagOf, ifMatch, ifNoneMatch, tagMatches } from '../rules/etag.js';
import { isIdSegment, storableId } from '../rules/id.js';
import { idempotencyKeyOf, requestHash } from '../rules/idempotency-key.js';
import type { KeptAnswer } from '../storage/idempotent-creates.js';
import { sendUserList } from './list-response.js';
import { sendFoundUsers } from './find-response.js';
import type { ListCursors } from '../rules/list-cursor.js';
import { listRequest } from '../rules/list-request.js';
import type { PasswordGate } from './password-gate.js';
import type { UserStore } from '../storage/store.js';
import type { ChangeOrigin } from '../storage/user-writes.js';
import { traceparentOf } from '../../tracing/trace-context.js';
import { userJson } from '../rules/user.js';
import type { UserValidation } from '../rules/validate.js';

export interface UserRouteDeps {
  store: UserStore;
  /** The list's `pwd` check and its guessing limit (shared with the change-event stream). */
  byPassword: PasswordGate;
  /** The refusals of the active API_COMPAT mode where the variants differ. */
  errors: CompatErrors;
  /** Signs and reads the positions of sorted pages. */
  cursors: ListCursors;
  /** How bodies are read: the contract's way, or VALIDATE_EMAIL's. */
  validate: UserValidation;
  /** What AUTH asks of each operation: a bearer token and its scope, or nothing. */
  access: UserAccess;
  /** IDEMPOTENCY=on: creates honour an Idempotency-Key header. */
  idempotency?: boolean;
}

const created = JSON.stringify({ message: messages.userCreated });
const updated = JSON.stringify({ message: messages.userUpdated });
const deleted = JSON.stringify({ message: messages.userDeleted });
const preconditionFailed = new HttpError(412, messages.preconditionFailed);
const keyInFlight = new HttpError(409, messages.idempotencyKeyInFlight);
const keyReused = new HttpError(422, messages.idempotencyKeyReused);
const replayed = { 'Idempotent-Replayed': 'true' };

export function registerUserRoutes(router: Router<Handler>, deps: UserRouteDeps): void {
  const { store, byPassword, errors, cursors, validate, access, idempotency = false } = deps;
  const byId = { id: isIdSegment };

  /** The list, once the caller is let in: by `pwd`, or by a bearer token where AUTH=all takes one. */
  const listUsers = async ({ req, res, query, trace }: RequestContext): Promise<void> => {
    const find = listRequest(query, req.headers.prefer, cursors);
    if (find) await sendFoundUsers(res, store, find, cursors, trace);
    else await sendUserList(res, store, trace);
  };

  router.add('GET', '/api/users', access.list(byPassword(listUsers), listUsers));

  router.add('POST', '/api/users', access.write(async (ctx) => {
    const { req, res } = ctx;
    const key = idempotency ? idempotencyKeyOf(req.headers['idempotency-key']) : undefined;
    const { name, email } = validate.input(await readJsonObject(req, res));
    if (key === undefined) {
      const id = await store.create(name, email, originOf(ctx));
      return sendJson(res, 201, created, { Location: `/api/users/${id}` });
    }
    const origin = originOf(ctx);
    const user = { name, email, requestId: origin.requestId, traceparent: origin.traceparent, span: origin.span };
    const outcome = await store.createOnce(key, requestHash(name, email), user, createdAnswer);
    if (outcome.kind === 'in-flight') throw keyInFlight;
    if (outcome.kind === 'reused') throw keyReused;
    const { status, body, location } = outcome.answer;
    sendJson(res, status, body, { ...(location === null ? {} : { Location: location }), ...(outcome.kind === 'replayed' ? replayed : {}) });
  }));

  router.add('GET', '/api/users/:id', access.readOne(async ({ req, res, params, trace }) => {
    const id = storableId(params.id!);
    const row = id === undefined ? undefined : await store.get(id, trace);
    if (!row) throw errors.readMissing;
    const etag = etagOf(row);
    const unless = ifNoneMatch(req.headers['if-none-match']);
    if (unless && tagMatches(unless, etag)) sendNotModified(res, etag);
    else sendJson(res, 200, userJson(row), { ETag: etag });
  }), byId);

  router.add('PUT', '/api/users/:id', access.write(async (ctx) => {
    const { req, res, params } = ctx;
    const { name, email } = validate.input(await readJsonObject(req, res));
    const id = storableId(params.id!);
    const precondition = ifMatch(req.headers['if-match']);
    if (precondition && id !== undefined) {
      return sendOutcome(res, await store.writeIf(id, { name, email }, precondition, originOf(ctx)), updated, updateMissing);
    }
    const found = id !== undefined && (await store.update(id, name, email, originOf(ctx)));
    if (!found) throw updateMissing;
    sendJson(res, 200, updated);
  }), byId);

  router.add('PATCH', '/api/users/:id', access.write(async (ctx) => {
    const { req, res, params } = ctx;
    const patch = validate.patch(await readJsonObject(req, res));
    const id = storableId(params.id!);
    if (id === undefined) throw updateMissing;
    sendOutcome(res, await store.writeIf(id, patch, ifMatch(req.headers['if-match']), originOf(ctx)), updated, updateMissing);
  }), byId);

  router.add('DELETE', '/api/users/:id', access.write(async (ctx) => {
    const { req, res, params } = ctx;
    const id = storableId(params.id!);
    const precondition = ifMatch(req.headers['if-match']);
    if (precondition && id !== undefined) {
      return sendOutcome(res, await store.writeIf(id, 'remove', precondition, originOf(ctx)), deleted, errors.deleteMissing);
    }
    const found = id !== undefined && (await store.remove(id, originOf(ctx)));
    if (!found) throw errors.deleteMissing;
    sendJson(res, 200, deleted);
  }), byId);
}

/** A new user's answer, kept with its Idempotency-Key. */
function createdAnswer(id: number): KeptAnswer {
  return { status: 201, body: created, location: `/api/users/${id}` };
}

/** A conditional write's answer: success with the user's new ETag (if it still exists); else the refusal its outcome calls for. */
function sendOutcome(res: ServerResponse, outcome: WriteOutcome, success: string, missing: HttpError): void {
  if (outcome.kind === 'not-found') throw missing;
  if (outcome.kind === 'precondition-failed') throw preconditionFailed;
  sendJson(res, 200, success, outcome.etag === undefined ? undefined : { ETag: outcome.etag });
}

/** The request named in a change's event: its id, and its span, which a webhook attempt continues. */
function originOf({ requestId, trace }: RequestContext): ChangeOrigin {
  return { requestId, traceparent: traceparentOf(trace), span: trace };
}
