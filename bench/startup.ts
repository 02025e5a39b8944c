import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { serverName } from '../src/config/db-servers.js';
import { projectFile } from '../src/paths.js';
import { freeTcpPort } from '../test/helpers/free-ports.js';
import { prepareBaseline } from './baseline.js';
import { serverFromEnv } from './database.js';
import { onCleanup, startChild, startTsChild, stopChild } from './lifecycle.js';
import type { BenchOptions } from './options.js';
import { describeMachine, fixed, formatTable, machineLine, progress, writeResults } from './report.js';

/** The contract's bare table, as a deployment of the seed's schema holds it. */
const BARE_TABLE = readFileSync(projectFile('test/migrations/fixtures/schema-before-migrations.sql'), 'utf8');
/** A read and a create every this many ms from the first answer (any status), as the issue measured it. */
const EVERY_MS = 20;
/** After the schema is complete, the client goes on this long. */
const AFTER_MS = 2000;

interface Probe {
  kind: 'read' | 'create';
  sentAt: number;
  at: number;
  status: number;
}

export interface StartupRun {
  side: string;
  rows: number;
  /** From the first answer to the last refusal (503), summed over every refused probe's wait to the next answer. */
  refusedMs: number;
  refusals: number;
  /** 503s after a success: the readiness flapped. */
  refusedAfterSuccess: number;
  errors: number;
  probes: number;
  /** From spawning the service to its first answer, and to its first success. */
  firstAnswerMs: number;
  firstSuccessMs: number;
  /** Each index build, by its log line. */
  builds: Array<{ version: number; name: string; ms: number }>;
  /** From spawning to the schema complete ('schema migrated' or 'schema up to date'). */
  settledMs: number;
}

/**
 * `--mode startup`: a start on the contract's bare table holding --rows users (a million by
 * default), as a deployment of the seed's schema meets this service: measured from outside by a
 * client that sends a read and a create every 20 ms from the service's first answer, until two
 * seconds after the schema is complete. With --baseline, the same for that commit, in the same run.
 */
export async function runStartup(options: BenchOptions): Promise<void> {
  const server = serverFromEnv();
  const sides: Array<{ side: string; entry?: string }> = [{ side: 'service' }];
  if (options.baseline !== undefined) {
    const baseline = prepareBaseline(options.baseline);
    progress(`baseline ${baseline.ref} (${baseline.commit.slice(0, 12)}) built`);
    sides.push({ side: `baseline ${baseline.ref}`, entry: baseline.entry });
  }
  const runs: StartupRun[] = [];
  for (const { side, entry } of sides) {
    for (let run = 1; run <= options.repeat; run++) {
      const database = `usvc_bench_start_${process.pid}_${randomBytes(3).toString('hex')}`;
      const admin = await mysql.createConnection({ ...server, multipleStatements: true, charset: 'utf8mb4' });
      onCleanup(async () => {
        await admin.query(`DROP DATABASE IF EXISTS \`${database}\``).catch(() => {});
        await admin.end().catch(() => {});
      });
      progress(`${side} (run ${run} of ${options.repeat}): loading ${options.rows} users into the bare table`);
      await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci; USE \`${database}\`; ${BARE_TABLE}`);
      await admin.query(`INSERT INTO users (name, email) SELECT CONCAT('User ', seq), CONCAT('user', seq, '@example.com') FROM seq_1_to_${options.rows}`);
      progress(`${side} (run ${run} of ${options.repeat}): starting`);
      runs.push(await measureStart(side, options.rows, { ...server, database }, entry));
      await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await admin.end();
    }
  }
  const machine = describeMachine(await versionOf(server));
  console.log(
    [
      `${machineLine(machine)}; the contract's bare table with ${options.rows} users; a read and a create every ${EVERY_MS} ms from the first answer`,
      formatTable(
        ['side', 'refused ms', '503s', '503 after a success', '500s', 'first answer ms', 'first success ms', 'index builds (s)', 'schema complete s'],
        runs.map((r) => [
          r.side,
          fixed(r.refusedMs, 0),
          String(r.refusals),
          String(r.refusedAfterSuccess),
          String(r.errors),
          fixed(r.firstAnswerMs, 0),
          fixed(r.firstSuccessMs, 0),
          r.builds.map((build) => fixed(build.ms / 1000, 2)).join(', ') || '-',
          fixed(r.settledMs / 1000, 1),
        ]),
      ),
    ].join('\n'),
  );
  progress(`results written to ${await writeResults('startup.json', { date: new Date().toISOString(), machine, rows: options.rows, runs })}`);
}

async function versionOf(server: ReturnType<typeof serverFromEnv>): Promise<string> {
  const admin = await mysql.createConnection(server);
  try {
    const [rows] = await admin.query('SELECT VERSION() AS version');
    return (rows as Array<{ version: string }>)[0]!.version;
  } finally {
    await admin.end();
  }
}

async function measureStart(side: string, rows: number, db: ReturnType<typeof serverFromEnv> & { database: string }, entry?: string): Promise<StartupRun> {
  const port = await freeTcpPort();
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    DB_HOST: serverName({ servers: [{ host: db.host, port: db.port }], user: db.user, password: db.password, database: db.database }),
    DB_USER: db.user,
    DB_PASSWORD: db.password,
    DB_NAME: db.database,
    ACCESS_PASSWORD: 'bench-startup',
    LOG_FORMAT: 'json',
    SHUTDOWN_DELAY_S: '0',
  };
  const spawnedAt = performance.now();
  const child = entry ? startChild(process.execPath, [entry], ['ignore', 'pipe', 'pipe'], env) : startTsChild('src/commands/start.ts', ['ignore', 'pipe', 'pipe'], env);
  const lines: Array<{ at: number; entry: Record<string, unknown> }> = [];
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop()!;
    for (const line of parts) {
      try {
        lines.push({ at: performance.now(), entry: JSON.parse(line) as Record<string, unknown> });
      } catch {
        // Not a log line.
      }
    }
  });
  child.stderr!.resume();
  const baseUrl = `http://127.0.0.1:${port}`;
  const probes: Probe[] = [];
  const settled = () => lines.find(({ entry }) => entry.msg === 'schema migrated' || entry.msg === 'schema up to date');
  const ask = async (kind: Probe['kind'], n: number): Promise<Probe> => {
    const sentAt = performance.now();
    const create = kind === 'create';
    const res = await fetch(`${baseUrl}${create ? '/api/users' : '/api/users/1'}`, {
      method: create ? 'POST' : 'GET',
      headers: create ? { 'content-type': 'application/json' } : {},
      ...(create ? { body: JSON.stringify({ name: `Probe ${n}`, email: `probe-${n}@example.com` }) } : {}),
      signal: AbortSignal.timeout(10_000),
    }).catch(() => undefined);
    await res?.body?.cancel();
    return { kind, sentAt, at: performance.now(), status: res?.status ?? 0 };
  };
  try {
    // Until the first answer: connection refused while the service is not listening yet.
    let first: Probe | undefined;
    while (first === undefined) {
      const probe = await ask('read', 0);
      if (probe.status !== 0) first = probe;
      else await new Promise((resolve) => setTimeout(resolve, 5));
      if (performance.now() - spawnedAt > 120_000) throw new Error(`${side}: no answer within 120 s`);
    }
    probes.push(first);
    for (let n = 1; ; n++) {
      const done = settled();
      if (done && performance.now() - done.at > AFTER_MS) break;
      if (performance.now() - spawnedAt > 600_000) throw new Error(`${side}: the schema was not complete within 10 minutes`);
      probes.push(await ask('read', n), await ask('create', n));
      await new Promise((resolve) => setTimeout(resolve, EVERY_MS));
    }
  } finally {
    await stopChild(child);
  }
  const firstSuccess = probes.findIndex((probe) => probe.status >= 200 && probe.status < 300);
  let refusedMs = 0;
  probes.forEach((probe, i) => {
    if (probe.status === 503) refusedMs += (probes[i + 1]?.sentAt ?? probe.at) - probe.sentAt;
  });
  const builds = lines
    .filter(({ entry }) => entry.msg === 'migration applied' && Number(entry.version) <= 3)
    .map(({ entry }) => ({ version: Number(entry.version), name: String(entry.name), ms: Number(entry.durationMs) }));
  return {
    side,
    rows,
    refusedMs,
    refusals: probes.filter((probe) => probe.status === 503).length,
    refusedAfterSuccess: firstSuccess < 0 ? 0 : probes.slice(firstSuccess).filter((probe) => probe.status === 503).length,
    errors: probes.filter((probe) => probe.status >= 500 && probe.status !== 503).length,
    probes: probes.length,
    firstAnswerMs: probes[0]!.at - spawnedAt,
    firstSuccessMs: firstSuccess < 0 ? Number.NaN : probes[firstSuccess]!.at - spawnedAt,
    builds,
    settledMs: (settled()?.at ?? performance.now()) - spawnedAt,
  };
}
