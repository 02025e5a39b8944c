import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { messages } from '../../src/errors/messages.js';
import type { Handler } from '../../src/http/context.js';
import { Router } from '../../src/http/router.js';
import { createHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/log/logger.js';
import { rawExchange } from '../helpers/raw-exchange.js';
import { jsonRequest, rawRequest } from '../helpers/raw-request.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';
import { assertRevealsNothing } from './helpers/input-disclosure.js';

// The bad-input corpus (input-corpus.test.ts) runs the same scan over every error body it provokes.

describe('error messages', () => {
  for (const [key, message] of Object.entries(messages)) {
    test(`messages.${key} reveals no stack, SQL, path, product or version`, () => {
      assertRevealsNothing({ status: 0, text: JSON.stringify({ error: message }), headers: {} });
    });
  }
});

describe('storage failures: a generic 500, the cause only in the log', () => {
  let service: RunningService;
  let port: number;
  before(async () => {
    service = await startService('security_disclosure');
    port = Number(new URL(service.baseUrl).port);
    await service.db.query('RENAME TABLE users TO users_away');
  });
  after(async () => {
    await service.db.query('RENAME TABLE users_away TO users');
    await service.close();
  });

  const body = JSON.stringify({ name: 'Failing', email: 'failing@example.com' });
  const operations = [
    ['list', rawRequest('GET', `/api/users?pwd=${TEST_PASSWORD}`)],
    ['read', rawRequest('GET', '/api/users/1')],
    ['create', jsonRequest('POST', '/api/users', body)],
    ['update', jsonRequest('PUT', '/api/users/1', body)],
    ['delete', rawRequest('DELETE', '/api/users/1')],
  ] as const;
  for (const [what, request] of operations) {
    test(`${what} with the table missing -> 500 {"error":"Database error"} and nothing more`, async () => {
      const res = await rawExchange(port, request);
      assert.equal(res.status, 500);
      assert.deepEqual(res.json, { error: 'Database error' });
      assertRevealsNothing(res, [TEST_PASSWORD]);
    });
  }

  test('the log, not the client, got the cause', () => {
    const errors = service.logs.filter((line) => line.includes('"level":"error"'));
    assert.ok(errors.length >= operations.length, `${errors.length} error lines`);
    assert.ok(errors.every((line) => line.includes('ER_NO_SUCH_TABLE')), 'each error line names the cause');
  });
});

describe('a bug in a handler: a generic 500, the stack only in the log', () => {
  const logs: string[] = [];
  const router = new Router<Handler>();
  router.add('GET', '/boom', () => {
    throw new TypeError('Cannot read properties of undefined (reading "secret") at /srv/app/src/users/routes.ts:42');
  });
  router.add('GET', '/boom-async', async () => {
    await Promise.resolve();
    throw new RangeError('SELECT * FROM users WHERE id = 1 failed in mysql2 3.9.1');
  });
  const { server } = createHttpServer({ router, logger: createLogger((line) => logs.push(line)) });
  let port: number;
  before(() => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => {
    port = (server.address() as AddressInfo).port;
    resolve();
  })));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  for (const path of ['/boom', '/boom-async']) {
    test(`GET ${path} -> 500 {"error":"Internal server error"}, the exception in the log`, async () => {
      const res = await rawExchange(port, rawRequest('GET', path));
      assert.equal(res.status, 500);
      assert.deepEqual(res.json, { error: 'Internal server error' });
      assertRevealsNothing(res);
      assert.ok(logs.some((line) => line.includes('"stack"') && line.includes(path)), 'the stack went to the log');
    });
  }
});
