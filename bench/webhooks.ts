import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBenchDatabase } from './database.js';
import type { BenchOptions } from './options.js';
import { describeMachine, fixed, formatTable, machineLine, progress, writeResults } from './report.js';
import { startService } from './service.js';
import { startSteadyLoad } from './steady-load.js';
import { scenarioNamed } from './workload.js';
import { runWebhookEndpoints } from './webhook-endpoints.js';

/** Creates per second in the steady phase: well under what the service and one endpoint can carry, so the delay is latency, not backlog. */
const STEADY_PER_SECOND = 200;
/** Creates per second asked for in the saturating phase: more than any machine here serves. */
const SATURATING_PER_SECOND = 100_000;
const DRAIN_TIMEOUT_MS = 120_000;

interface Delivery {
  eventId: number;
  /** Received, ms since the epoch. */
  at: number;
  /** From the event's commit (its timestamp) to its arrival, ms. */
  delayMs: number;
}

export interface PhaseFigures {
  phase: string;
  creates: number;
  createsPerSecond: number;
  deliveries: number;
  duplicates: number;
  deliveriesPerSecond: number;
  /** From the end of the load to the last delivery. */
  drainSeconds: number;
  delayP50Ms: number;
  delayP99Ms: number;
}

/**
 * `--mode webhooks`: the service with one webhook endpoint (a local receiver answering 204 at once),
 * under creates at a steady pace and then as fast as it serves them. Reports deliveries per second
 * and the delay from an event's commit to its delivery (p50, p99). Writes bench/results/webhooks-latest.json.
 */
export async function runWebhooks(options: BenchOptions): Promise<void> {
  if (options.endpoints.length > 0) return runWebhookEndpoints(options, options.endpoints);
  const db = await createBenchDatabase();
  const receiver = await startReceiver();
  const password = randomBytes(12).toString('hex');
  const env = {
    WEBHOOK_URLS: `http://127.0.0.1:${receiver.port}/hooks`,
    WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
  };
  const service = await startService(db.config, password, { ...options, env });
  const figures: PhaseFigures[] = [];
  const machine = describeMachine(await db.serverVersion());
  try {
    await db.resetUsers(1000, 'writes');
    for (const [phase, perSecond, connections] of [
      ['steady', STEADY_PER_SECOND, 8],
      ['saturating', SATURATING_PER_SECOND, options.connections],
    ] as const) {
      progress(`webhooks: ${phase} creates for ${options.durationSec} s`);
      receiver.deliveries.length = 0;
      const load = startSteadyLoad(service.baseUrl, scenarioNamed('create'), password, connections, perSecond);
      await new Promise((resolve) => setTimeout(resolve, options.durationSec * 1000));
      const answers = await load.stop();
      const loadEnded = Date.now();
      const creates = answers.filter((answer) => answer.ok).length;
      await receiver.waitFor(creates);
      figures.push(phaseFigures(phase, creates, options.durationSec, receiver.deliveries, loadEnded));
    }
  } finally {
    await service.stop();
    await receiver.close();
    await db.drop();
  }
  console.log(`\nWebhook delivery, one endpoint answering at once (${machineLine(machine)})`);
  console.log(
    formatTable(
      ['phase', 'creates/s', 'deliveries/s', 'delay p50 ms', 'delay p99 ms', 'drain s', 'duplicates'],
      figures.map((f) => [f.phase, fixed(f.createsPerSecond, 0), fixed(f.deliveriesPerSecond, 0), fixed(f.delayP50Ms, 0), fixed(f.delayP99Ms, 0), fixed(f.drainSeconds, 1), String(f.duplicates)]),
    ),
  );
  console.log(`\nresults: ${await writeResults('webhooks', { date: new Date().toISOString(), machine, figures })}`);
}

function phaseFigures(phase: string, creates: number, seconds: number, deliveries: Delivery[], loadEnded: number): PhaseFigures {
  const firstOfEach = new Map<number, Delivery>();
  for (const delivery of deliveries) if (!firstOfEach.has(delivery.eventId)) firstOfEach.set(delivery.eventId, delivery);
  const unique = [...firstOfEach.values()];
  const delays = unique.map((d) => d.delayMs).sort((a, b) => a - b);
  const times = unique.map((d) => d.at);
  const span = (Math.max(...times) - Math.min(...times)) / 1000;
  return {
    phase,
    creates,
    createsPerSecond: creates / seconds,
    deliveries: unique.length,
    duplicates: deliveries.length - unique.length,
    deliveriesPerSecond: span > 0 ? unique.length / span : unique.length,
    drainSeconds: Math.max(0, (Math.max(...times) - loadEnded) / 1000),
    delayP50Ms: quantile(delays, 0.5),
    delayP99Ms: quantile(delays, 0.99),
  };
}

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

interface Receiver {
  port: number;
  deliveries: Delivery[];
  /** Resolves once `count` distinct events arrived since the deliveries were last cleared. */
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; timestamp: string };
      deliveries.push({ eventId: event.id, at, delayMs: at - Date.parse(event.timestamp) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    deliveries,
    async waitFor(count) {
      const deadline = Date.now() + DRAIN_TIMEOUT_MS;
      while (new Set(deliveries.map((d) => d.eventId)).size < count) {
        if (Date.now() > deadline) throw new Error(`only ${new Set(deliveries.map((d) => d.eventId)).size} of ${count} events delivered within ${DRAIN_TIMEOUT_MS / 1000} s`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
