import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { spawnService, type ChildService } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { haproxyBinary, startHaproxy, type RunningHaproxy } from '../helpers/haproxy.js';
import { portOf } from '../helpers/http.js';
import { scrape, valueOf } from '../helpers/metrics.js';
import { statusOf } from '../helpers/status-of.js';

/**
 * Three instances of two workers each on one database behind HAProxy round-robin, as
 * docs/scaling.md deploys them, with LIMITS_SHARED=on: one client's requests and one address's wrong
 * passwords are counted for the whole deployment, not three times over.
 */

const LIMIT = 300;
const WINDOW_S = 10;
const CONNECTIONS = 16;


const haproxy = haproxyBinary();

describe('LIMITS_SHARED=on: three instances (WORKERS=2) behind round-robin HAProxy count each limit once', { skip: haproxy === undefined ? 'haproxy is not installed (Debian: apt-get install haproxy)' : false }, () => {
  let db: TestDatabase;
  const services: ChildService[] = [];
  let proxy: RunningHaproxy | undefined;
  before(async () => {
    db = await createTestDatabase('limits_shared');
    const env = { WORKERS: '2', LIMITS_SHARED: 'on', RATE_LIMIT: `${LIMIT}/${WINDOW_S}s`, AUTH_MAX_FAILURES: '10', AUTH_WINDOW_S: '60', METRICS: 'on' };
    // One after the other: the first creates the schema the others find.
    for (let i = 0; i < 3; i++) services.push(await spawnService(db.config, env));
    proxy = await startHaproxy(haproxy!, services.map((service, i) => ({ name: `instance${i}`, port: portOf(service.baseUrl) })));
  });
  after(async () => {
    await proxy?.stop();
    await Promise.all(services.map((service) => service.process.stop()));
    await db?.drop();
  });

  test('the start-up line says the limits are shared and how often they sync', () => {
    const listening = services[0]!.process.entries().find((entry) => entry.msg === 'listening');
    assert.equal((listening?.features as Record<string, unknown>)?.limits, 'shared, synced every 500 ms');
  });

  test('AUTH_MAX_FAILURES=10: wrong passwords spread over the instances get at most 12 answers other than 429', async (t) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const statuses: number[] = [];
    for (let i = 0; i < 45; i++) statuses.push(await statusOf(agent, `${proxy!.baseUrl}/api/users?pwd=wrong-${i}`));
    agent.destroy();
    const answered = statuses.filter((status) => status !== 429);
    t.diagnostic(`${answered.length} answered 401 of ${statuses.length}`);
    assert.ok(answered.every((status) => status === 401), `only 401 or 429: ${statuses.join(' ')}`);
    assert.ok(answered.length >= 10 && answered.length <= 12, `${answered.length} wrong passwords answered 401: ${statuses.join(' ')}`);
    assert.equal(statuses.at(-1), 429, 'the address stays refused');
  });

  test(`RATE_LIMIT=${LIMIT}/${WINDOW_S}s: a client sending as fast as it can gets 0.9-1.15x the limit in a whole window`, async (t) => {
    const windowMs = WINDOW_S * 1000;
    // Begin just after a window opens (windows are aligned to the clock), so that one whole window is measured.
    await sleep(windowMs - (Date.now() % windowMs) + 50);
    const firstWindow = Math.floor(Date.now() / windowMs);
    const until = (firstWindow + 1) * windowMs + 1500;
    const accepted = new Map<number, number>();
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    let refused = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (Date.now() < until) {
          const status = await statusOf(agent, `${proxy!.baseUrl}/api/users/1`);
          const window = Math.floor(Date.now() / windowMs);
          if (status === 200) accepted.set(window, (accepted.get(window) ?? 0) + 1);
          else if (status === 429) refused++;
          else assert.fail(`unexpected status ${status}`);
        }
      }),
    );
    agent.destroy();
    const whole = accepted.get(firstWindow) ?? 0;
    t.diagnostic(`accepted ${whole} in the whole window, ${accepted.get(firstWindow + 1) ?? 0} in the next 1.5 s; refused ${refused}`);
    assert.ok(refused > whole, `the client was refused (${refused} times)`);
    assert.ok(whole >= LIMIT * 0.9 && whole <= LIMIT * 1.15, `${whole} accepted in the window (limit ${LIMIT})`);
    assert.ok((accepted.get(firstWindow + 1) ?? 0) <= LIMIT * 1.15, `${accepted.get(firstWindow + 1)} accepted in the next window's first 1.5 s`);
  });

  test('/metrics shows the instances sharing the count, the sync, and refusals by limit', async () => {
    const families = await scrape(`${services[1]!.baseUrl}/metrics`);
    assert.equal(valueOf(families, 'limits_shared_instances'), 3);
    const age = valueOf(families, 'limits_sync_age_seconds');
    assert.ok(age >= 0 && age < 60, `sync age ${age}`);
    assert.ok(valueOf(families, 'limits_sync_statements_total') > 0);
    assert.equal(valueOf(families, 'limits_sync_failures_total'), 0);
    assert.ok(valueOf(families, 'limits_refusals_total', { limit: 'rate' }) > 0);
    assert.ok(valueOf(families, 'limits_refusals_total', { limit: 'guessing' }) > 0);
  });
});
