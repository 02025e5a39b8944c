import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertErrorBody, idByEmail, tableSnapshot } from '../api/support/contract.js';
import { portOf, request, type ApiResponse } from '../helpers/http.js';
import { nginxBinary, startNginx, type RunningNginx } from '../helpers/nginx.js';
import { startService, type RunningService } from '../helpers/service.js';

const MIB = 1024 * 1024;
const TRIES = 20;

/** A valid user object padded to `bytes` bytes: only its size can make it refused. */
function userOfSize(bytes: number, email: string): string {
  const head = `{"name":"Big","email":"${email}","pad":"`;
  return head + 'x'.repeat(bytes - head.length - 2) + '"}';
}

/** Failures nginx logs about a request it could not pass on (a broken pipe or reset while sending the body, for one). */
function proxyErrors(log: string): string[] {
  return log.split('\n').filter((line) => /\[(error|crit|alert|emerg)\]/.test(line));
}

describe('behind nginx (client_max_body_size 4m, proxy_http_version 1.1)', { skip: !nginxBinary && 'nginx is not installed (Debian package nginx)' }, () => {
  let service: RunningService;
  let nginx: RunningNginx;
  before(async () => {
    service = await startService('behind_nginx');
    nginx = await startNginx({
      upstreamPort: portOf(service.baseUrl),
      location: ['client_max_body_size 4m;', 'proxy_http_version 1.1;'],
    });
  });
  after(async () => {
    await nginx?.stop();
    await service?.close();
  });

  test(`${TRIES} POSTs of 2 MiB through nginx each get the service's 413, never nginx's 502, and nothing is stored`, async () => {
    const before = await tableSnapshot(service.db);
    const answers: ApiResponse[] = [];
    for (let i = 0; i < TRIES; i++) {
      const body = userOfSize(2 * MIB, `nginx-big-${i}@example.com`);
      answers.push(await request(nginx.baseUrl, 'POST', '/api/users', { body, headers: { 'content-type': 'application/json' } }));
    }
    const counts: Record<number, number> = {};
    for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
    assert.deepEqual(counts, { 413: TRIES }, `statuses of ${TRIES} tries`);
    for (const answer of answers) assertErrorBody(answer, 'Request body too large (limit 1 MiB)');
    assert.deepEqual(await tableSnapshot(service.db), before, 'nothing stored');
    assert.deepEqual(proxyErrors(await nginx.errorLog()), [], 'nginx logged no failure to pass a request on');
  });

  test('a POST within the limit through nginx -> 201, stored', async () => {
    const res = await request(nginx.baseUrl, 'POST', '/api/users', { json: { name: 'Proxied', email: 'proxied@example.com' } });
    assert.equal(res.status, 201, res.text);
    await idByEmail(service.db, 'proxied@example.com');
  });

  test('a POST of 1 MiB exactly through nginx (the limit) -> 201, stored', async () => {
    const body = userOfSize(MIB, 'nginx-exact@example.com');
    const res = await request(nginx.baseUrl, 'POST', '/api/users', { body, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 201, res.text);
    await idByEmail(service.db, 'nginx-exact@example.com');
  });
});
