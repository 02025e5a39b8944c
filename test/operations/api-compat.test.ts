import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ApiCompat } from '../../src/config/environment.js';
import { request } from '../helpers/http.js';
import { runScript } from '../helpers/run-script.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';
const ABSENT = '/api/users/987654';

interface Row {
  rule: string;
  method: string;
  path: string;
  json?: unknown;
  /** Per mode: status, Content-Type and the exact body. */
  answers: Record<ApiCompat, [number, string, string]>;
}

const same = (status: number, body: string): Record<ApiCompat, [number, string, string]> => ({
  contract: [status, JSON_TYPE, body],
  earlier: [status, JSON_TYPE, body],
  fastapi: [status, JSON_TYPE, body],
});

const wrongPassword: Record<ApiCompat, [number, string, string]> = {
  contract: [401, JSON_TYPE, '{"error":"Invalid password"}'],
  earlier: [200, TEXT_TYPE, 'Wrong password mate'],
  fastapi: [403, JSON_TYPE, '{"message":"Wrong password mate"}'],
};

/** The compatibility table of docs/api.md, and the answers that must stay as in the contract in every mode. */
const rows: Row[] = [
  { rule: 'list, wrong pwd', method: 'GET', path: '/api/users?pwd=wrong', answers: wrongPassword },
  { rule: 'list, missing pwd', method: 'GET', path: '/api/users', answers: wrongPassword },
  {
    rule: 'read one, not found',
    method: 'GET',
    path: ABSENT,
    answers: {
      contract: [404, JSON_TYPE, '{"error":"User not found"}'],
      earlier: [500, JSON_TYPE, '{"message":"User not found"}'],
      fastapi: [404, JSON_TYPE, '{"message":"User not found"}'],
    },
  },
  {
    rule: 'delete, not found',
    method: 'DELETE',
    path: ABSENT,
    answers: {
      contract: [404, JSON_TYPE, '{"error":"User not found"}'],
      earlier: [404, JSON_TYPE, '{"message":"User not found"}'],
      fastapi: [404, JSON_TYPE, '{"message":"User not found"}'],
    },
  },
  { rule: 'update, not found (as the contract)', method: 'PUT', path: ABSENT, json: { name: 'A', email: 'a@b.c' }, answers: same(404, '{"error":"User not found"}') },
  { rule: 'create, name missing (as the contract)', method: 'POST', path: '/api/users', json: { email: 'a@b.c' }, answers: same(400, '{"error":"Name and email required"}') },
  { rule: 'create (as the contract)', method: 'POST', path: '/api/users', json: { name: 'A', email: 'a@b.c' }, answers: same(201, '{"message":"User created successfully"}') },
  { rule: 'unknown path (as the contract)', method: 'GET', path: '/api/nothing', answers: same(404, '{"error":"Not found"}') },
];

const modes: ApiCompat[] = ['contract', 'earlier', 'fastapi'];
const services = new Map<ApiCompat, RunningService>();

before(async () => {
  const first = await startService('compat');
  services.set('contract', first);
  for (const mode of modes.slice(1)) services.set(mode, await startService(`compat_${mode}`, { db: first.db, apiCompat: mode }));
});
after(async () => {
  for (const mode of modes.slice(1)) await services.get(mode)?.close();
  await services.get('contract')?.close();
});

for (const mode of modes) {
  describe(`API_COMPAT=${mode}`, () => {
    for (const row of rows) {
      const [status, type, body] = row.answers[mode];
      test(`${row.rule}: ${row.method} ${row.path} -> ${status} ${body}`, async () => {
        const res = await request(services.get(mode)!.baseUrl, row.method, row.path, row.json === undefined ? {} : { json: row.json });
        assert.equal(res.status, status);
        assert.equal(res.headers.get('content-type'), type);
        assert.equal(res.text, body);
      });
    }

    test('the right password lists the users as in the contract', async () => {
      const res = await request(services.get(mode)!.baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`);
      assert.equal(res.status, 200);
      assert.ok(Array.isArray(res.json) && res.json.length >= 10);
    });
  });
}

describe('API_COMPAT with an unknown value', () => {
  test('stops the start with a one-line message naming the variable', async () => {
    const result = await runScript('src/commands/start.ts', { API_COMPAT: 'flask', PORT: '0', HOST: '127.0.0.1', DB_HOST: '127.0.0.1' });
    assert.equal(result.code, 1);
    const message = result.stderr.trim();
    assert.ok(!message.includes('\n'), message);
    assert.match(message, /API_COMPAT/);
    assert.match(message, /flask/);
  });
});
