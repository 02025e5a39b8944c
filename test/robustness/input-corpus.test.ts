import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { rawExchange } from '../helpers/raw-exchange.js';
import { rawRequest } from '../helpers/raw-request.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { corpus, outcome } from './helpers/input-corpus.js';
import { assertRevealsNothing } from './helpers/input-disclosure.js';

const JSON_TYPE = 'application/json; charset=utf-8';

interface Row {
  id: number;
  name: string;
  email: string;
  created_at: string;
}

let service: RunningService;
let port: number;
before(async () => {
  service = await startService('input_corpus');
  port = Number(new URL(service.baseUrl).port);
});
after(() => service.close());

const table = () => service.db.query<Row[]>('SELECT id, name, email, created_at FROM users ORDER BY id');

describe('bad input: every case gets its 4xx JSON answer, stores nothing, and the service keeps answering', () => {
  for (const { group, tried, request: sent, expect } of corpus) {
    test(`${group}: ${tried} -> ${outcome(expect)}`, async () => {
      const before = await table();
      const res = await rawExchange(port, sent, { timeoutMs: 15_000 });

      assert.equal(res.status, expect.status, `status; body: ${res.text.slice(0, 200)}`);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['cache-control'], 'no-store');
      if (sent.head) assert.equal(res.body.length, 0, 'HEAD answers carry no body');
      else if (expect.creates) assert.deepEqual(res.json, { message: 'User created successfully' });
      else assert.deepEqual(res.json, { error: expect.error });
      assert.equal(res.headers.connection === 'close', expect.closes === true, `Connection: ${res.headers.connection}`);
      if (expect.allow) assert.equal(res.headers.allow, expect.allow);
      assertRevealsNothing(res, [TEST_PASSWORD]);

      const after = await table();
      if (expect.creates) {
        assert.deepEqual(after.slice(0, before.length), before, 'existing rows untouched');
        assert.equal(after.length, before.length + 1, 'exactly one row added');
        const { name, email } = after[after.length - 1]!;
        assert.deepEqual({ name, email }, expect.creates);
      } else {
        assert.deepEqual(after, before, 'the users table is unchanged');
      }

      const next = await request(service.baseUrl, 'GET', '/api/users/1');
      assert.equal(next.status, 200, 'the service still answers');
      assert.equal((next.json as Row).id, 1);
    });
  }

  test('HEAD /api/users/1 -> the status and headers of GET, Content-Length included, and no body', async () => {
    const get = await rawExchange(port, rawRequest('GET', '/api/users/1'));
    const head = await rawExchange(port, rawRequest('HEAD', '/api/users/1'));
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
    // The date, the request id and the span differ between any two responses.
    const { date: _getDate, 'x-request-id': _getId, traceparent: _getSpan, ...getHeaders } = get.headers;
    const { date: _headDate, 'x-request-id': _headId, traceparent: _headSpan, ...headHeaders } = head.headers;
    assert.deepEqual(headHeaders, getHeaders);
    assert.equal(Number(head.headers['content-length']), get.body.length);
  });

  test('the corpus holds at least 40 cases, with bodies, URLs and headers each well represented', () => {
    const count = (group: string) => corpus.filter((c) => c.group === group).length;
    assert.ok(corpus.length >= 40, `${corpus.length} cases`);
    for (const group of ['Body', 'URL', 'Header']) assert.ok(count(group) >= 10, `${group}: ${count(group)} cases`);
  });
});
