import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { createBenchDatabase, serverFromEnv } from './database.js';
import type { BenchOptions } from './options.js';
import { describeMachine, fixed, formatTable, machineLine, progress, writeResults } from './report.js';
import { startService } from './service.js';

/** The pace of creates: each is delivered to every endpoint. */
const CREATES_PER_SECOND = 5;
const DRAIN_TIMEOUT_MS = 60_000;
/** After the endpoints are made: every process reads them within a second. */
const SETTLE_MS = 2500;

export interface EndpointFigures {
  endpoints: number;
  creates: number;
  deliveries: number;
  duplicates: number;
  deliveriesPerSecond: number;
  /** From a create's 201 to its acknowledgement by the last of the endpoints, ms. */
  lastAckP50Ms: number;
  lastAckP99Ms: number;
  statementsPerDelivery: number;
}

/**
 * `--mode webhooks --endpoints 1,10,100`: for each count, a fresh service with that many endpoints
 * made through the API (one local receiver, a path each), creates at 5 per second for the duration,
 * then every delivery awaited. Reports the time from each create's 201 to its acknowledgement by
 * every endpoint, duplicates, and the database's statements per delivery (its `Questions` counter
 * over the load, so nothing else may use the server meanwhile), with the ratio to the first count.
 */
export async function runWebhookEndpoints(options: BenchOptions, counts: number[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-endpoints-'));
  const { key, line } = await newKey();
  writeFileSync(join(dir, 'api-keys'), `${line}\n`);
  const figures: EndpointFigures[] = [];
  let machine = describeMachine('unknown');
  try {
    for (const count of counts) {
      const db = await createBenchDatabase();
      machine = describeMachine(await db.serverVersion());
      const receiver = await startReceiver();
      const env = { EVENTS: 'on', AUTH: 'writes', API_KEYS_FILE: join(dir, 'api-keys'), WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8' };
      const service = await startService(db.config, 'unused', { ...options, env });
      try {
        await db.resetUsers(100, 'writes');
        const call = (method: string, path: string, body: unknown) =>
          fetch(`${service.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        for (let i = 0; i < count; i++) {
          const res = await call('POST', '/api/webhooks/endpoints', { url: `http://127.0.0.1:${receiver.port}/hooks/${i}`, event_types: ['user.created'] });
          if (res.status !== 201) throw new Error(`making an endpoint answered ${res.status}: ${await res.text()}`);
        }
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        progress(`webhooks: ${count} endpoint(s), ${CREATES_PER_SECOND} creates/s for ${options.durationSec} s`);
        const before = await questions();
        const answered = new Map<number, number>();
        const started = Date.now();
        for (let i = 0; i < CREATES_PER_SECOND * options.durationSec; i++) {
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + (i * 1000) / CREATES_PER_SECOND - Date.now())));
          void call('POST', '/api/users', { name: `Bench ${i}`, email: `bench${i}@example.com` }).then((res) => {
            if (res.status === 201) answered.set(Number(res.headers.get('location')!.split('/').pop()), Date.now());
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 1000));
        await receiver.waitFor(answered.size * count);
        const statements = (await questions()) - before;
        figures.push(summarise(count, answered, receiver.arrivals, statements, options.durationSec));
      } finally {
        await service.stop();
        await receiver.close();
        await db.drop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const first = figures[0]?.statementsPerDelivery ?? NaN;
  console.log(`\nWebhook endpoints made through the API, ${CREATES_PER_SECOND} creates/s, each delivered to every endpoint (${machineLine(machine)})`);
  console.log(
    formatTable(
      ['endpoints', 'creates', 'deliveries', 'duplicates', 'deliveries/s', 'last ack p50 ms', 'last ack p99 ms', 'statements/delivery', `x ${figures[0]?.endpoints ?? ''} endpoint(s)`],
      figures.map((f) => [String(f.endpoints), String(f.creates), String(f.deliveries), String(f.duplicates), fixed(f.deliveriesPerSecond, 0), fixed(f.lastAckP50Ms, 0), fixed(f.lastAckP99Ms, 0), fixed(f.statementsPerDelivery, 2), fixed(f.statementsPerDelivery / first, 2)]),
    ),
  );
  console.log(`\nresults: ${await writeResults('webhook-endpoints', { date: new Date().toISOString(), machine, figures })}`);
}

/** The figures of one count: per user, the last endpoint's acknowledgement after the create's 201. */
export function summarise(count: number, answered: Map<number, number>, arrivals: Arrival[], statements: number, seconds: number): EndpointFigures {
  const seen = new Map<string, number>();
  const lastAck = new Map<number, number>();
  let duplicates = 0;
  for (const { path, userId, at } of arrivals) {
    const key = `${path} ${userId}`;
    if (seen.has(key)) duplicates++;
    seen.set(key, at);
    lastAck.set(userId, Math.max(lastAck.get(userId) ?? 0, at));
  }
  const delays = [...answered].map(([userId, at]) => (lastAck.get(userId) ?? NaN) - at).filter((ms) => !Number.isNaN(ms)).sort((a, b) => a - b);
  const deliveries = arrivals.length - duplicates;
  return {
    endpoints: count,
    creates: answered.size,
    deliveries,
    duplicates,
    deliveriesPerSecond: deliveries / seconds,
    lastAckP50Ms: quantile(delays, 0.5),
    lastAckP99Ms: quantile(delays, 0.99),
    statementsPerDelivery: deliveries === 0 ? NaN : statements / deliveries,
  };
}

export function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Statements the database server has received so far (its `Questions` counter). */
async function questions(): Promise<number> {
  const server = serverFromEnv();
  const connection = await mysql.createConnection({ host: server.host, port: server.port, user: server.user, password: server.password });
  try {
    const [rows] = await connection.query<Array<{ Value: string } & mysql.RowDataPacket>>("SHOW GLOBAL STATUS LIKE 'Questions'");
    return Number(rows[0]!.Value);
  } finally {
    await connection.end();
  }
}

/** A key with webhooks:admin and users:write, made as an operator makes one. */
export async function newKey(): Promise<{ key: string; line: string }> {
  const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'key:new', '--', '--scopes', 'webhooks:admin,users:write', '--name', 'bench']);
  const key = /^(usk_\S+)$/m.exec(stdout)?.[1];
  const line = /^(bench \S+ sha256:[0-9a-f]{64})$/m.exec(stdout)?.[1];
  if (!key || !line) throw new Error(`key:new printed ${stdout}`);
  return { key, line };
}

export interface Arrival {
  path: string;
  userId: number;
  at: number;
}

interface Receiver {
  port: number;
  arrivals: Arrival[];
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals: Arrival[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: number } };
      arrivals.push({ path: req.url!, userId: event.data.id, at: Date.now() });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    arrivals,
    async waitFor(count) {
      const deadline = Date.now() + DRAIN_TIMEOUT_MS;
      while (new Set(arrivals.map((one) => `${one.path} ${one.userId}`)).size < count) {
        if (Date.now() > deadline) throw new Error(`only ${arrivals.length} of ${count} deliveries within ${DRAIN_TIMEOUT_MS / 1000} s`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
