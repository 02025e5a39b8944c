import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { request } from '../helpers/http.js';
import { startService, type RunningService } from '../helpers/service.js';
import { Receiver } from './support/receiver.js';
import { adminKeys, EndpointClient, endpointWebhooks, startAdminService, type AdminKeys, type Endpoint } from './support/endpoint-admin.js';

const BASE = '/api/webhooks/endpoints';

let keys: AdminKeys;
let db: TestDatabase;
let receiver: Receiver;
/** AUTH=writes, WEBHOOK_URLS with one receiver. */
let service: RunningService;
/** AUTH=off on the same database. */
let open: RunningService;
let admin: EndpointClient;

before(async () => {
  keys = await adminKeys();
  receiver = await Receiver.start();
  db = await createTestDatabase('hook_api');
  const webhooks = endpointWebhooks({ urls: [receiver.url], secret: receiver.key });
  service = await startAdminService('hook_api', keys, webhooks, { db });
  open = await startService('hook_api', { db, events: { retentionSeconds: 86_400, webhooks } });
  admin = new EndpointClient(service.baseUrl, keys.admin.key);
});
after(async () => {
  await Promise.all([service?.close(), open?.close()]);
  await db?.drop();
  await receiver?.close();
  keys?.remove();
});

describe('who may manage endpoints', () => {
  test('with AUTH=off every endpoint route answers 403 naming AUTH and the webhooks:admin scope', async () => {
    for (const [method, path] of [['GET', BASE], ['POST', BASE], ['GET', `${BASE}/1`], ['PATCH', `${BASE}/1`], ['DELETE', `${BASE}/1`], ['GET', `${BASE}/1/secret`]] as const) {
      const res = await request(open.baseUrl, method, path, method === 'POST' || method === 'PATCH' ? { json: { url: 'http://127.0.0.1:9/x' } } : {});
      assert.equal(res.status, 403, `${method} ${path}`);
      const error = (res.json as { error: string }).error;
      assert.match(error, /AUTH/);
      assert.match(error, /webhooks:admin/);
    }
  });

  test('without a token the answer is 401; with a token lacking webhooks:admin it is 403; nothing is made', async () => {
    const before = (await admin.call('GET', BASE)).json as Endpoint[];
    assert.equal((await request(service.baseUrl, 'POST', BASE, { json: { url: 'http://127.0.0.1:9/x' } })).status, 401);
    for (const token of [keys.writer.key, keys.reader.key]) {
      const res = await new EndpointClient(service.baseUrl, token).call('POST', BASE, { url: 'http://127.0.0.1:9/x' });
      assert.equal(res.status, 403);
      assert.match(res.headers.get('www-authenticate') ?? '', /scope="webhooks:admin"/);
    }
    assert.deepEqual((await admin.call('GET', BASE)).json, before);
  });
});

describe('creating and reading endpoints', () => {
  test('a new endpoint answers 201 with Location, the endpoint and a whsec_ secret; reading it shows the same without the secret, with an ETag', async () => {
    const res = await admin.call('POST', BASE, { url: 'http://127.0.0.1:9/made', description: 'billing', event_types: ['user.deleted', 'user.created'], metadata: { team: 'billing' } });
    assert.equal(res.status, 201);
    const made = res.json as Endpoint;
    assert.equal(res.headers.get('location'), `${BASE}/${made.id}`);
    assert.match(made.secret!, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
    assert.ok(Buffer.from(made.secret!.slice(6), 'base64').length >= 24);
    assert.deepEqual(
      { url: made.url, description: made.description, event_types: made.event_types, disabled: made.disabled, disabled_reason: made.disabled_reason, metadata: made.metadata, source: made.source },
      { url: 'http://127.0.0.1:9/made', description: 'billing', event_types: ['user.created', 'user.deleted'], disabled: false, disabled_reason: null, metadata: { team: 'billing' }, source: 'api' },
    );
    assert.match(made.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const read = await admin.call('GET', `${BASE}/${made.id}`);
    assert.equal(read.status, 200);
    assert.match(read.headers.get('etag') ?? '', /^"[^"]+"$/);
    const { secret, ...shown } = made;
    assert.ok(secret);
    assert.deepEqual(read.json, shown);
    assert.ok(!read.text.includes(made.secret!), 'the secret is shown only when made');
  });

  test('an endpoint made without types or metadata takes every type and has empty metadata; a given secret is kept', async () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const made = await admin.create({ url: 'https://hooks.example.com/a', secret });
    assert.equal(made.event_types, null);
    assert.deepEqual(made.metadata, {});
    assert.equal(made.description, null);
    assert.equal(made.secret, secret);
    assert.deepEqual((await admin.call('GET', `${BASE}/${made.id}/secret`)).json, { key: secret });
  });

  test('each bad value is a 400 naming its field, and nothing is stored', async () => {
    const before = ((await admin.call('GET', BASE)).json as Endpoint[]).length;
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /url/],
      [{ url: 'ftp://example.com/x' }, /url/],
      [{ url: 'not a url' }, /url/],
      [{ url: 'http://user:pw@example.com/x' }, /url/],
      [{ url: `https://example.com/${'a'.repeat(2048)}` }, /url/],
      [{ url: 'http://10.0.0.1/x' }, /url/],
      [{ url: 'http://169.254.169.254/latest' }, /url/],
      [{ url: 42 }, /url/],
      [{ url: 'https://example.com/x', event_types: [] }, /event_types/],
      [{ url: 'https://example.com/x', event_types: ['user.renamed'] }, /event_types/],
      [{ url: 'https://example.com/x', event_types: 'user.created' }, /event_types/],
      [{ url: 'https://example.com/x', metadata: { a: 1 } }, /metadata/],
      [{ url: 'https://example.com/x', metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, /metadata/],
      [{ url: 'https://example.com/x', metadata: { a: 'x'.repeat(501) } }, /metadata/],
      [{ url: 'https://example.com/x', metadata: [] }, /metadata/],
      [{ url: 'https://example.com/x', disabled: 'yes' }, /disabled/],
      [{ url: 'https://example.com/x', description: 7 }, /description/],
      [{ url: 'https://example.com/x', secret: 'whsec_c2hvcnQ=' }, /secret/],
      [{ url: 'https://example.com/x', secret: 'not-a-secret' }, /secret/],
      [{ url: 'https://example.com/x', colour: 'red' }, /colour/],
    ];
    for (const [body, field] of bad) {
      const res = await admin.call('POST', BASE, body);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
      assert.match((res.json as { error: string }).error, field, JSON.stringify(body).slice(0, 80));
    }
    const untyped = await request(service.baseUrl, 'POST', BASE, { body: '{"url":"https://example.com/x"}', headers: { authorization: `Bearer ${keys.admin.key}` } });
    assert.equal(untyped.status, 415);
    assert.equal(((await admin.call('GET', BASE)).json as Endpoint[]).length, before);
  });

  test('with WEBHOOK_HTTPS_ONLY=on an http URL is refused with 400', async () => {
    const strict = await startAdminService('hook_https', keys, endpointWebhooks({ httpsOnly: true }), { db });
    try {
      const client = new EndpointClient(strict.baseUrl, keys.admin.key);
      const res = await client.call('POST', BASE, { url: 'http://hooks.example.com/x' });
      assert.equal(res.status, 400);
      assert.match((res.json as { error: string }).error, /url/);
      assert.equal((await client.call('POST', BASE, { url: 'https://hooks.example.com/x' })).status, 201);
    } finally {
      await strict.close();
    }
  });

  test('the list holds every endpoint in id order, those of WEBHOOK_URLS with source "env"; unknown ids are 404', async () => {
    const made = await admin.create({ url: 'https://hooks.example.com/listed' });
    const list = (await admin.call('GET', BASE)).json as Endpoint[];
    assert.deepEqual(list.map((one) => one.id), [...list.map((one) => one.id)].sort((a, b) => a - b));
    const env = list.filter((one) => one.source === 'env');
    assert.deepEqual(env.map((one) => one.url), [receiver.url]);
    assert.ok(list.some((one) => one.id === made.id && one.source === 'api'));
    assert.ok(list.every((one) => !('secret' in one)));
    for (const path of [`${BASE}/999999`, `${BASE}/999999/secret`, `${BASE}/999999/attempts`, `${BASE}/999999/stats`]) {
      assert.equal((await admin.call('GET', path)).status, 404, path);
    }
  });

  test('an endpoint of WEBHOOK_URLS answers 409 to any change, deletion, rotation or reading of its secret', async () => {
    const env = ((await admin.call('GET', BASE)).json as Endpoint[]).find((one) => one.source === 'env')!;
    for (const [method, path, json] of [
      ['PATCH', `${BASE}/${env.id}`, { description: 'x' }],
      ['DELETE', `${BASE}/${env.id}`, undefined],
      ['POST', `${BASE}/${env.id}/secret/rotate`, {}],
      ['GET', `${BASE}/${env.id}/secret`, undefined],
    ] as const) {
      const res = await admin.call(method, path, json);
      assert.equal(res.status, 409, `${method} ${path}`);
      assert.match((res.json as { error: string }).error, /WEBHOOK_URLS/);
    }
    assert.equal(((await admin.call('GET', `${BASE}/${env.id}`)).json as Endpoint).url, receiver.url);
  });
});

describe('changing and removing endpoints', () => {
  test('PATCH merges what it names over the endpoint and answers with it and a new ETag', async () => {
    const made = await admin.create({ url: 'https://hooks.example.com/p', description: 'before', metadata: { a: 'b' } });
    const res = await admin.call('PATCH', `${BASE}/${made.id}`, { description: 'after', event_types: ['user.updated'] });
    assert.equal(res.status, 200);
    const changed = res.json as Endpoint;
    assert.deepEqual([changed.url, changed.description, changed.event_types, changed.metadata], ['https://hooks.example.com/p', 'after', ['user.updated'], { a: 'b' }]);
    assert.equal(res.headers.get('etag'), (await admin.call('GET', `${BASE}/${made.id}`)).headers.get('etag'));
    assert.equal(((await admin.call('PATCH', `${BASE}/${made.id}`, { event_types: null })).json as Endpoint).event_types, null, 'null: every type again');
  });

  test('PATCH with If-Match honours it: a stale tag is 412 and changes nothing, the current tag succeeds', async () => {
    const made = await admin.create({ url: 'https://hooks.example.com/m' });
    const tag = (await admin.call('GET', `${BASE}/${made.id}`)).headers.get('etag')!;
    assert.equal((await admin.call('PATCH', `${BASE}/${made.id}`, { description: 'one' }, { 'if-match': tag })).status, 200);
    const stale = await admin.call('PATCH', `${BASE}/${made.id}`, { description: 'two' }, { 'if-match': tag });
    assert.equal(stale.status, 412);
    assert.equal(((await admin.call('GET', `${BASE}/${made.id}`)).json as Endpoint).description, 'one');
    assert.equal((await admin.call('PATCH', `${BASE}/${made.id}`, { colour: 'x' })).status, 400);
  });

  test('DELETE answers 204 with no body, and the endpoint is gone', async () => {
    const made = await admin.create({ url: 'https://hooks.example.com/d' });
    const res = await admin.call('DELETE', `${BASE}/${made.id}`);
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assert.equal((await admin.call('GET', `${BASE}/${made.id}`)).status, 404);
    assert.equal((await admin.call('DELETE', `${BASE}/${made.id}`)).status, 404);
    assert.equal(await db.query<unknown[]>('SELECT 1 FROM webhook_endpoints e JOIN webhook_subscriptions s USING (endpoint) WHERE s.id = ?', [made.id]).then((rows) => rows.length), 0);
  });

  test('rotating answers the new key, which the secret route shows from then on; a given key is kept; a bad grace is 400', async () => {
    const made = await admin.create({ url: 'https://hooks.example.com/r' });
    const rotated = await admin.call('POST', `${BASE}/${made.id}/secret/rotate`);
    assert.equal(rotated.status, 200);
    const { key } = rotated.json as { key: string };
    assert.match(key, /^whsec_/);
    assert.notEqual(key, made.secret);
    assert.deepEqual((await admin.call('GET', `${BASE}/${made.id}/secret`)).json, { key });
    const given = `whsec_${Buffer.alloc(24, 3).toString('base64')}`;
    assert.deepEqual((await admin.call('POST', `${BASE}/${made.id}/secret/rotate`, { key: given, grace_seconds: 0 })).json, { key: given });
    for (const body of [{ grace_seconds: -1 }, { grace_seconds: 604_801 }, { grace_seconds: 1.5 }, { key: 'whsec_x' }, { other: 1 }]) {
      const res = await admin.call('POST', `${BASE}/${made.id}/secret/rotate`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    assert.deepEqual((await admin.call('GET', `${BASE}/${made.id}/secret`)).json, { key: given });
  });
});

describe('attempts, stats and recovery requests', () => {
  test('the attempts query refuses unknown parameters and bad filters with 400 naming them', async () => {
    const made = await admin.create({ url: 'https://hooks.example.com/q' });
    for (const [query, field] of [['limit=0', /limit/], ['limit=501', /limit/], ['status=ok', /status/], ['event_type=user.x', /event_type/], ['after=yesterday', /after/], ['colour=red', /colour/]] as const) {
      const res = await admin.call('GET', `${BASE}/${made.id}/attempts?${query}`);
      assert.equal(res.status, 400, query);
      assert.match((res.json as { error: string }).error, field);
    }
    const empty = await admin.call('GET', `${BASE}/${made.id}/attempts?limit=500&status=failed`);
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.json, []);
    assert.deepEqual((await admin.call('GET', `${BASE}/${made.id}/stats`)).json, { succeeded: 0, failed: 0, pending: 0 });
  });

  test('recover needs a since within the events kept (400 saying how far back they go); resend of an event not kept is 404', async () => {
    const made = await admin.create({ url: 'https://hooks.example.com/v' });
    const old = await admin.call('POST', `${BASE}/${made.id}/recover`, { since: '2000-01-01T00:00:00Z' });
    assert.equal(old.status, 400);
    assert.match((old.json as { error: string }).error, /go back to \d{4}-\d{2}-\d{2}T/);
    assert.equal((await admin.call('POST', `${BASE}/${made.id}/recover`, {})).status, 400);
    assert.equal((await admin.call('POST', `${BASE}/${made.id}/recover`, { since: new Date().toISOString(), until: '2000-01-01T00:00:00Z' })).status, 400);
    const fine = await admin.call('POST', `${BASE}/${made.id}/recover`, { since: new Date(Date.now() - 60_000).toISOString() });
    assert.equal(fine.status, 202);
    assert.deepEqual(fine.json, { events: 0 });
    assert.equal((await admin.call('POST', `${BASE}/${made.id}/events/987654/resend`)).status, 404);
  });
});
