import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PoolConnection } from 'mysql2';
import type { ConnectionSource } from '../../src/db/connection-source.js';
import { poolTuning } from '../../src/db/pool-tuning.js';
import type { ApiCompat } from '../../src/config/environment.js';
import { registerDocsRoutes } from '../../src/docs/routes.js';
import type { Handler } from '../../src/http/context.js';
import { Router } from '../../src/http/router.js';
import { request, type ApiResponse } from '../helpers/http.js';
import { startService, type RunningService, type ServiceOptions } from '../helpers/service.js';
import { casesFor, examplesNotReproduced, provenWithAuth, type Case, type Setup } from './cases.js';
import { endpointWebhooks } from '../events/support/endpoint-admin.js';

import { contractApi, describeApi, responseKey, routerPath, type ApiDescription, type OpenApiDocument } from './document.js';
import { schemaErrors } from './schemas.js';

/**
 * The conformance suite for a service in one API_COMPAT mode: the description it serves at
 * /openapi.json agrees with its router, and every real answer is documented there exactly. The
 * contract mode runs with METRICS=on on the API port (its description then is openapi.json as it
 * is, `/metrics` included); the other modes without metrics, so their descriptions leave it out.
 */
export function runConformance(mode: ApiCompat): void {
  let service: RunningService;
  let api: ApiDescription;
  // The contract mode serves openapi.json as it is: with metrics on its port and change events on.
  const metricsOnApiPort = mode === 'contract';
  const events = mode === 'contract';
  const cases = casesFor(mode, metricsOnApiPort, events);
  // The production limits on password guessing, with a trusted proxy so one case can use an address of its own.
  const options: ServiceOptions = {
    apiCompat: mode,
    trustProxy: true,
    guessing: { maxFailures: 10, windowSeconds: 60 },
    ...(metricsOnApiPort ? { metrics: { onApiPort: true } } : {}),
    ...(events ? { events: { retentionSeconds: 7 * 86_400, webhooks: endpointWebhooks() } } : {}),
  };

  before(async () => {
    service = await startService(`openapi_${mode}`, options);
    api = describeApi((await request(service.baseUrl, 'GET', '/openapi.json')).json as OpenApiDocument);
  });
  after(() => service?.close());

  describe(`the served /openapi.json (API_COMPAT=${mode}) and the router agree`, () => {
    if (mode === 'contract') {
      test('the contract mode serves openapi.json as it is', () => {
        assert.deepEqual(api.document, contractApi.document);
      });
    } else {
      test('a compatibility mode says so in the description it serves', () => {
        assert.match(String((api.document as unknown as { info: { description: string } }).info.description), new RegExp(`API_COMPAT=${mode}`));
      });
      test('without metrics the served description leaves out /metrics and its tag', () => {
        assert.equal(api.document.paths['/metrics'], undefined);
        const tags = (api.document as unknown as { tags: Array<{ name: string }> }).tags.map((tag) => tag.name);
        assert.deepEqual(tags, ['users', 'health']);
      });
    }

    test('every API route the app serves is documented and every documented operation is served', () => {
      const docsOnly = new Router<Handler>();
      registerDocsRoutes(docsOnly);
      const docsRoutes = new Set(docsOnly.routes().map(({ method, path }) => `${method} ${path}`));
      const served = service.app
        .routes()
        .map(({ method, path }) => `${method} ${path}`)
        .filter((route) => !docsRoutes.has(route));
      const documented = api.operations.map(({ method, path }) => `${method} ${routerPath(path)}`);
      assert.deepEqual(served.sort(), documented.sort());
    });

    test('every documented response status of every operation is provoked by a case below', () => {
      const provoked = new Set(cases.map((c) => `${c.operationId} ${responseKey(api.operation(c.operationId), c.status)}`));
      const documented = api.operations.filter((op) => !provenWithAuth(op.path)).flatMap((op) => Object.keys(op.responses).map((key) => `${op.operationId} ${key}`));
      assert.deepEqual(documented.filter((response) => !provoked.has(response)), []);
    });

    test('every documented response example is reproduced exactly by a case below, or says why it cannot be', () => {
      // By name, not by status key: a 400 example of the shared 4XX response is shadowed by an
      // operation's own 400 response, which documents the same example.
      const reproduced = new Set(cases.map((c) => `${c.operationId} ${c.example}`));
      const missing = api.operations.filter((op) => !provenWithAuth(op.path)).flatMap((op) =>
        Object.values(op.responses).flatMap((response) =>
          Object.values(response.content ?? {}).flatMap((media) =>
            Object.keys(media.examples ?? {})
              .filter((name) => !(name in examplesNotReproduced))
              .map((name) => `${op.operationId} ${name}`)
              .filter((example) => !reproduced.has(example)),
          ),
        ),
      );
      assert.deepEqual(missing, []);
    });
  });

  describe('real responses have a documented status, media type, schema, headers and example', () => {
    runCases('normal');
  });

  describe('with the users table renamed away', () => {
    before(() => service.db.query('RENAME TABLE users TO users_away'));
    after(() => service.db.query('RENAME TABLE users_away TO users'));
    runCases('storage-down');
  });

  if (events) {
    describe('with events pruned past the resume point', () => {
      // Events numbered through 1001 at least and pruned through 1000: the 410 names 1001 as the oldest kept.
      before(async () => {
        await service.db.query('INSERT INTO event_sequence (id, last_id) VALUES (1, 1001) ON DUPLICATE KEY UPDATE last_id = GREATEST(last_id, 1001)');
        await service.db.query('INSERT INTO event_sequence (id, last_id) VALUES (2, 1000) ON DUPLICATE KEY UPDATE last_id = 1000');
      });
      after(() => service.db.query('DELETE FROM event_sequence WHERE id = 2'));
      runCases('events-pruned');
    });

    describe('with the event tables renamed away', () => {
      before(() => service.db.query('RENAME TABLE event_sequence TO event_sequence_away, event_batches TO event_batches_away'));
      after(() => service.db.query('RENAME TABLE event_sequence_away TO event_sequence, event_batches_away TO event_batches'));
      runCases('events-down');
    });
  }

  describe('with the only database connection held and its one-slot wait queue full', () => {
    let busy: RunningService;
    let held: Promise<PoolConnection>;
    let queued: Promise<PoolConnection>;
    before(async () => {
      busy = await startService(`openapi_busy_${mode}`, {
        ...options,
        db: service.db,
        poolTuning: poolTuning({ connectionLimit: 1, queueLimit: 1, connectTimeoutMs: 5000 }),
      });
      held = connectionWhenFree(busy.app.pool);
      await held;
      queued = (await waitingForConnection(busy.app.pool)).request;
    });
    after(async () => {
      busy.app.pool.giveBack(await held, false);
      busy.app.pool.giveBack(await queued, false);
      await busy.close();
    });
    runCases('pool-full', () => busy.baseUrl);
  });

  describe('before the schema is in place', () => {
    let starting: RunningService;
    before(async () => {
      starting = await startService(`openapi_starting_${mode}`, { ...options, db: service.db, prepareSchema: false });
      // As a worker is told by its primary that the schema is being put in place.
      starting.app.schemaAt('applying');
    });
    after(() => starting?.close());
    runCases('not-ready', () => starting.baseUrl);
  });

  describe('with VALIDATE_EMAIL=on and UNIQUE_EMAIL=on', () => {
    let strict: RunningService;
    before(async () => {
      strict = await startService(`openapi_strict_${mode}`, { ...options, integrity: { validateEmail: true, uniqueEmail: true }, idempotency: { ttlSeconds: 86_400 } });
    });
    after(() => strict?.close());
    runCases('integrity', () => strict.baseUrl);
  });

  function runCases(setup: Setup, baseUrl = () => service.baseUrl): void {
    for (const c of cases.filter((candidate) => candidate.setup === setup)) {
      test(c.rule, async () => assertDocumented(api, c, await c.send(baseUrl())));
    }
  }
}

/** The real answer `res` to case `c` is documented in `api` exactly: status, headers, media type, schema and example. */
export function assertDocumented(api: ApiDescription, c: Case, res: ApiResponse): void {
  assert.equal(res.status, c.status, `body: ${res.text}`);
  const op = api.operation(c.operationId);
  const key = responseKey(op, res.status);
  assert.ok(key, `${res.status} is not documented for ${c.operationId}`);
  const documented = op.responses[key]!;
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    const value = res.headers.get(name);
    if (header.required) assert.notEqual(value, null, `documented header ${name} is missing`);
    if (value === null) continue;
    const typed = header.schema.type === 'integer' ? Number(value) : value;
    assert.equal(schemaErrors(header.schema, typed), undefined, `header ${name}: ${value}`);
  }
  if (!documented.content) {
    assert.equal(res.text, '', `${c.operationId} ${key} is documented without a body`);
    return;
  }
  const mediaType = res.headers.get('content-type')?.split(';')[0]?.trim() ?? '(none)';
  const media = documented.content[mediaType];
  assert.ok(media, `Content-Type ${mediaType} is not documented for ${c.operationId} ${key}`);
  // The earlier variant's one plain-text answer and the event stream are compared as text; every other body is JSON.
  const asText = mediaType === 'text/plain' || mediaType === 'text/event-stream';
  const body = asText ? res.text : res.json;
  if (mediaType === 'text/event-stream') assert.match(res.text, /^retry: \d+\n\n/, 'a stream opens with its reconnection delay');
  assert.notEqual(body, undefined, `the body is not JSON: ${res.text}`);
  assert.equal(schemaErrors(media.schema, body), undefined, `body: ${res.text}`);
  if (c.example) {
    const example = media.examples?.[c.example];
    assert.ok(example, `no example ${c.example} documented for ${c.operationId} ${key}`);
    assert.deepEqual(body, example.value);
  }
}

/**
 * A request for a connection that is left waiting in the pool's one-slot queue. The service's own
 * background reads (events numbered, pruned) may hold the slot for a while: the request is made
 * again until it is the one waiting.
 */
async function waitingForConnection(pool: ConnectionSource): Promise<{ request: Promise<PoolConnection> }> {
  for (;;) {
    const request = takeConnection(pool);
    const state = await Promise.race([request.then(() => 'given', () => 'refused'), new Promise((resolve) => setTimeout(resolve, 300, 'waiting'))]);
    if (state === 'waiting') return { request };
    if (state === 'given') pool.giveBack(await request, false);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The pool's connection, once it is free. A request is made again each second: mysql2's pool does
 * not hand a queued request the connection it makes to replace one destroyed meanwhile (a
 * background read's, broken), only a new request gets it. A request given up on gives its
 * connection straight back if it gets one later.
 */
async function connectionWhenFree(pool: ConnectionSource): Promise<PoolConnection> {
  for (;;) {
    const request = takeConnection(pool);
    const state = await Promise.race([request.then(() => 'given', () => 'refused'), new Promise((resolve) => setTimeout(resolve, 1000, 'waiting'))]);
    if (state === 'given') return request;
    if (state === 'waiting') request.then((connection) => pool.giveBack(connection, false), () => {});
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function takeConnection(pool: ConnectionSource): Promise<PoolConnection> {
  return new Promise((resolve, reject) => {
    pool.getConnection((error, connection) => (error ? reject(error) : resolve(connection)));
  });
}
