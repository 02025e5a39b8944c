import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { registerDocsRoutes } from '../../src/docs/routes.js';
import type { Handler } from '../../src/http/context.js';
import { Router } from '../../src/http/router.js';
import { request } from '../helpers/http.js';
import { startService, type RunningService } from '../helpers/service.js';
import { endpointWebhooks } from './support/endpoint-admin.js';
import { describeApi, responseKey, routerPath, type ApiDescription, type OpenApiDocument } from '../openapi/document.js';

describe('with EVENTS=on the served /openapi.json and the router agree on the stream', () => {
  let service: RunningService;
  let api: ApiDescription;
  before(async () => {
    service = await startService('stream_described', { events: { retentionSeconds: 86_400, webhooks: endpointWebhooks() } });
    api = describeApi((await request(service.baseUrl, 'GET', '/openapi.json')).json as OpenApiDocument);
  });
  after(() => service?.close());

  test('every API route served, the stream and the webhook endpoints included, is documented, and every documented operation is served', () => {
    const docsOnly = new Router<Handler>();
    registerDocsRoutes(docsOnly);
    const docsRoutes = new Set(docsOnly.routes().map(({ method, path }) => `${method} ${path}`));
    const served = service.app.routes().map(({ method, path }) => `${method} ${path}`).filter((route) => !docsRoutes.has(route));
    assert.ok(served.includes('GET /api/users/events'));
    assert.deepEqual(served.sort(), api.operations.map(({ method, path }) => `${method} ${routerPath(path)}`).sort());
  });

  test('each status the stream answers with is documented for it: 200, 400, 401, 403 (AUTH=all), 410, 429, 500, 503', () => {
    const stream = api.operations.find(({ method, path }) => method === 'GET' && path === '/api/users/events')!;
    for (const status of [200, 400, 401, 403, 410, 429, 500, 503]) assert.ok(responseKey(stream, status), `${status} documented`);
  });
});
