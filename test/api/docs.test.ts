import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { portOf, request } from '../helpers/http.js';
import { rawExchange } from '../helpers/raw-exchange.js';
import { literalRequest } from '../helpers/raw-request.js';
import { startService, type RunningService } from '../helpers/service.js';

let service: RunningService;
before(async () => {
  service = await startService('docs');
});
after(() => service.close());

const get = (path: string) => request(service.baseUrl, 'GET', path);

describe('the API reference page', () => {
  for (const path of ['/apidocs', '/apidocs/']) {
    test(`GET ${path} -> 200 HTML loading Swagger UI from this server and its initializer`, async () => {
      const res = await get(path);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8$/i);
      assert.match(res.text, /<script src="\/apidocs\/swagger-ui-bundle\.js"><\/script>/);
      assert.match(res.text, /<script src="\/apidocs\/swagger-initializer\.js"><\/script>/);
      assert.match(res.text, /href="\/apidocs\/swagger-ui\.css"/);
      assert.doesNotMatch(res.text, /https?:\/\//, 'no CDN or other origin');
    });
  }

  test('the initializer loads /apidocs/openapi.json from this server, not the Petstore default', async () => {
    const res = await get('/apidocs/swagger-initializer.js');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.match(res.text, /url:\s*'\/apidocs\/openapi\.json'/);
    assert.doesNotMatch(res.text, /petstore/i);
  });

  test('/apidocs/openapi.json is /openapi.json without the optional parameters\' examples (Try it out starts them empty); required ones keep theirs', async () => {
    const page = (await get('/apidocs/openapi.json')).json as { components: { parameters: Record<string, { required?: boolean; example?: unknown; examples?: unknown; schema?: { example?: unknown; default?: unknown } }> } };
    const docs = (await get('/openapi.json')).json as typeof page;
    for (const [name, parameter] of Object.entries(page.components.parameters)) {
      if (parameter.required === true) {
        assert.deepEqual(parameter, docs.components.parameters[name], `${name} is required: unchanged`);
        continue;
      }
      assert.equal(parameter.example, undefined, `${name} has no example on the page`);
      assert.equal(parameter.examples, undefined, `${name} has no examples on the page`);
      assert.equal(parameter.schema?.example, undefined);
      assert.equal(parameter.schema?.default, undefined);
    }
    const idempotencyKey = docs.components.parameters.IdempotencyKey!;
    assert.ok(idempotencyKey.example !== undefined || idempotencyKey.examples !== undefined || idempotencyKey.schema?.example !== undefined, 'the documentation keeps its examples');
  });

  test('/apidocs/index.html is this page, not the package\'s Petstore page', async () => {
    const res = await get('/apidocs/index.html');
    assert.equal(res.status, 200);
    assert.match(res.text, /swagger-initializer\.js/);
    assert.doesNotMatch(res.text, /petstore/i);
  });

  const assets = [
    { path: '/apidocs/swagger-ui-bundle.js', type: /^text\/javascript/, starts: undefined },
    { path: '/apidocs/swagger-ui.css', type: /^text\/css/, starts: undefined },
    { path: '/apidocs/favicon-32x32.png', type: /^image\/png$/, starts: '\u0089PNG' },
    { path: '/apidocs/favicon-16x16.png', type: /^image\/png$/, starts: '\u0089PNG' },
  ];
  for (const { path, type, starts } of assets) {
    test(`GET ${path} -> 200 with the right content type and nosniff`, async () => {
      const res = await fetch(service.baseUrl + path);
      const body = Buffer.from(await res.arrayBuffer());
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', type);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.ok(body.length > 0);
      if (starts) assert.equal(body.subarray(0, 4).toString('latin1'), starts);
    });
  }

  test('GET /openapi.json -> 200 JSON, an OpenAPI 3 document', async () => {
    const res = await get('/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.match(String((res.json as { openapi?: unknown }).openapi), /^3\./);
  });

  test('GET /docs -> 301 Location: /apidocs/', async () => {
    const res = await fetch(`${service.baseUrl}/docs`, { redirect: 'manual' });
    await res.arrayBuffer();
    assert.equal(res.status, 301);
    assert.equal(res.headers.get('location'), '/apidocs/');
  });

  test('an unknown file under /apidocs -> 404 JSON', async () => {
    const res = await get('/apidocs/nope.js');
    assert.equal(res.status, 404);
    assert.deepEqual(res.json, { error: 'Not found' });
  });
});

describe('no path traversal out of the Swagger UI folder', () => {
  const attempts = [
    '/apidocs/../package.json',
    '/apidocs/%2e%2e/package.json',
    '/apidocs/%2E%2E/package.json',
    '/apidocs/..%2fpackage.json',
    '/apidocs/..%2Fpackage.json',
    '/apidocs/%2e%2e%2fpackage.json',
    '/apidocs/..%5cpackage.json',
    '/apidocs/..\\package.json',
    '/apidocs/....//package.json',
    '/apidocs/../../package.json',
    '/apidocs/../src/config.ts',
    '/apidocs/%2e%2e/%2e%2e/etc/passwd',
    '/apidocs//etc/passwd',
    '/apidocs/./swagger-ui.css/../../package.json',
  ];
  for (const target of attempts) {
    test(`GET ${target} -> 404, no file content`, async () => {
      // Raw HTTP: fetch and URL would resolve the dots before sending.
      const res = await rawExchange(portOf(service.baseUrl), literalRequest(`GET ${target} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n`));
      assert.equal(res.status, 404);
      assert.deepEqual(JSON.parse(res.text), { error: 'Not found' });
    });
  }
});
