import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { pollUntil } from '../helpers/poll-until.js';
import { startService, type RunningService } from '../helpers/service.js';

const SECRET = 'Zq9-secret-Pw_77';
let service: RunningService;
before(async () => {
  service = await startService('logging', { password: SECRET });
});
after(() => service.close());

const percentEncoded = (text: string) =>
  [...text].map((char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** Every form the password could take in a log line. */
const secretForms = [SECRET, encodeURIComponent(SECRET), percentEncoded(SECRET), percentEncoded(SECRET).toLowerCase(), SECRET.toLowerCase()];

interface RequestLog {
  msg: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
}

function requestLogs(): RequestLog[] {
  return service.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry): entry is Record<string, unknown> & RequestLog => entry.msg === 'request');
}

/** Request lines are written when the response closes, which can be just after the client has it. */
function logsFor(marker: string, count = 1): Promise<RequestLog[]> {
  return pollUntil(
    `${count} request line(s) for ${marker}`,
    () => {
      const found = requestLogs().filter((entry) => entry.path.includes(marker));
      return found.length >= count ? found : undefined;
    },
    { timeoutMs: 5000, intervalMs: 20 },
  );
}

describe('one JSON log line per request', () => {
  const rows = [
    { method: 'GET', path: '/api/users/1', status: 200 },
    { method: 'GET', path: '/api/users/999999', status: 404 },
    { method: 'POST', path: '/api/users', json: { name: 'Logged', email: 'logged@example.com' }, status: 201 },
    { method: 'POST', path: '/api/users', json: {}, status: 400 },
    { method: 'PUT', path: '/api/users/2', json: { name: 'Logged', email: 'logged@example.com' }, status: 200 },
    { method: 'DELETE', path: '/api/users/999999', status: 404 },
    { method: 'POST', path: '/api/users/1', status: 405 },
    { method: 'OPTIONS', path: '/api/users', status: 204 },
    { method: 'GET', path: '/nowhere', status: 404 },
    { method: 'GET', path: '/healthz', status: 200 },
  ];
  for (const [index, row] of rows.entries()) {
    test(`${row.method} ${row.path} -> exactly one line with method, path, status ${row.status} and duration`, async () => {
      // The marker is a key: values in the query may be redacted.
      const marker = `trace${index}x${Date.now()}`;
      const res = await request(service.baseUrl, row.method, `${row.path}?${marker}`, row.json === undefined ? {} : { json: row.json });
      assert.equal(res.status, row.status);
      const lines = await logsFor(marker);
      assert.equal(lines.length, 1, 'one line per request');
      const line = lines[0]!;
      assert.equal(line.method, row.method);
      assert.equal(line.path, `${row.path}?${marker}`);
      assert.equal(line.status, row.status);
      assert.equal(typeof line.durationMs, 'number');
      assert.ok(line.durationMs >= 0);
    });
  }

  test('every log line is one JSON object with a time, a level and a message', () => {
    for (const line of service.logs) {
      assert.ok(line.endsWith('\n') && !line.slice(0, -1).includes('\n'), 'one line');
      const entry = JSON.parse(line) as Record<string, unknown>;
      assert.equal(typeof entry.msg, 'string');
      assert.ok(['info', 'warn', 'error'].includes(entry.level as string));
      assert.ok(!Number.isNaN(Date.parse(entry.time as string)));
    }
  });
});

describe('the password never appears in the log', () => {
  const targets = [
    `/api/users?pwd=${SECRET}`,
    `/api/users?p%77d=${SECRET}`,
    `/api/users?%70%77%64=${SECRET}`,
    `/api/users?P%77D=${SECRET}`,
    `/api/users?pwd=${percentEncoded(SECRET)}`,
    `/api/users?pwd=${percentEncoded(SECRET).toLowerCase()}`,
    `/api/users?x=1&pwd=${SECRET}&y=2`,
    `/api/users?pwd=wrong&pwd=${SECRET}`,
    `/api/users?pwd=${SECRET}&pwd=${SECRET}`,
    `/api/users?%zz=1&pwd=${SECRET}`,
    `/api/users?pwd=${SECRET}x`,
    `/api/users/1?pwd=${SECRET}`,
    `/nowhere?pwd=${SECRET}`,
  ];
  for (const [index, target] of targets.entries()) {
    test(`GET ${target.replaceAll(SECRET, '<secret>').replaceAll(percentEncoded(SECRET), '<encoded secret>').replaceAll(percentEncoded(SECRET).toLowerCase(), '<encoded secret>')}: logged with the value redacted`, async () => {
      const marker = `leak${index}x`;
      await request(service.baseUrl, 'GET', `${target}&${marker}`);
      const [line] = await logsFor(marker);
      assert.ok(line, 'the request is logged');
      assert.match(line.path, /\[REDACTED\]/);
      for (const form of secretForms) {
        for (const logged of service.logs) assert.ok(!logged.includes(form), `the password (as ${form}) is not logged: ${logged}`);
      }
    });
  }

  test('POST and DELETE with the password in the query: redacted as well', async () => {
    await request(service.baseUrl, 'POST', `/api/users?pwd=${SECRET}&leakpost`, { json: { name: 'A', email: 'a@b.c' } });
    await request(service.baseUrl, 'DELETE', `/api/users?pwd=${SECRET}&leakdelete`);
    assert.equal((await logsFor('leakpost')).length, 1);
    assert.equal((await logsFor('leakdelete')).length, 1);
    for (const logged of service.logs) assert.ok(!logged.includes(SECRET));
  });
});
