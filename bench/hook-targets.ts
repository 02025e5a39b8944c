import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DbConfig } from '../src/config/environment.js';
import type { BenchOptions } from './options.js';
import { progress } from './report.js';
import { startService } from './service.js';
import { newKey } from './webhook-endpoints.js';

/** Where the throughput mode's events go: the environment of each side, and what to stop afterwards. */
export interface HookTargets {
  /** For every side: WEBHOOK_URLS of one local receiver, when asked for. */
  env: Record<string, string>;
  /** For the sides of this build: the API's endpoints instead of WEBHOOK_URLS, when asked for (a baseline may not know them). */
  currentEnv: Record<string, string>;
  /** Makes the API's endpoints in a database that a side of this build is about to use. */
  prepare(db: DbConfig): Promise<void>;
  delivered(): number;
  stop(): Promise<void>;
}

/**
 * `--webhook-urls 1` and `--api-endpoints N` (throughput mode, with events on): a local receiver
 * answering 204 at once, named in WEBHOOK_URLS, and N endpoints made through the API before the
 * measured services start (by a short-lived service of its own with AUTH=writes, since the measured
 * ones run without AUTH): every service of this build then delivers to them as it reads them.
 */
export async function hookTargets(options: BenchOptions): Promise<HookTargets | undefined> {
  if (options.webhookUrls === 0 && options.apiEndpoints === 0) return undefined;
  let delivered = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      delivered++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const env: Record<string, string> =
    options.webhookUrls === 0 ? {} : { WEBHOOK_URLS: `${base}/operator`, WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}` };
  const currentEnv: Record<string, string> = options.apiEndpoints === 0 ? {} : { WEBHOOK_URLS: '', WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8' };
  return {
    env,
    currentEnv,
    prepare: (db) => (options.apiEndpoints > 0 ? makeEndpoints(options, db, `${base}/api`, { EVENTS: 'on', ...env, ...currentEnv }) : Promise.resolve()),
    delivered: () => delivered,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function makeEndpoints(options: BenchOptions, db: DbConfig, url: string, env: Record<string, string>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-hooks-'));
  const { key, line } = await newKey();
  writeFileSync(join(dir, 'api-keys'), `${line}\n`);
  const maker = await startService(db, 'unused', { ...options, env: { ...env, AUTH: 'writes', API_KEYS_FILE: join(dir, 'api-keys') } });
  try {
    for (let i = 0; i < options.apiEndpoints; i++) {
      const res = await fetch(`${maker.baseUrl}/api/webhooks/endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${url}/${i}` }),
      });
      if (res.status !== 201) throw new Error(`making an endpoint answered ${res.status}: ${await res.text()}`);
    }
    progress(`${options.apiEndpoints} webhook endpoints made through the API`);
  } finally {
    await maker.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
