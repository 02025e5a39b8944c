import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { serverName } from '../src/config/db-servers.js';
import type { DbConfig } from '../src/config/environment.js';
import { isIndexMigration, migrations } from '../src/db/statements.js';
import { createBenchDatabase, serverFromEnv } from './database.js';
import { onCleanup, outputOnSuccess, startChild } from './lifecycle.js';
import type { BenchOptions } from './options.js';
import { describeMachine, fixed, formatTable, machineLine, progress, writeResults, type Machine } from './report.js';
import { nodeArgsFor } from './runner.js';
import { startService } from './service.js';
import { type Answer, startSteadyLoad } from './steady-load.js';
import { closeTimedConnections } from './timed-request.js';
import { scenarioNamed } from './workload.js';

/** The steady load: the mixed scenario's reads by id, creates and updates, at a pace that leaves the build room. */
const LOAD_CONNECTIONS = 4;
const LOAD_PER_SECOND = 400;
/** Seconds of load measured before the build starts and after it ends, to compare with. */
const QUIET_SECONDS = 5;
/** Dirty pages (of the buffer pool) under which the loaded table counts as written out, and the longest wait for it. */
const SETTLED_DIRTY_SHARE = 0.2;
const SETTLE_LIMIT_SECONDS = 60;
/** Seconds of load first, not counted: the service's first requests run before its code is compiled. */
const WARMUP_SECONDS = 3;
/** The migrations that add the finding indexes: dropped, with their records, then built again under load. */
const indexMigrations = migrations.filter(isIndexMigration).filter((migration) => ['users_email', 'users_name', 'users_created_at'].includes(migration.index));

export interface PeriodStats {
  period: string;
  seconds: number;
  answers: number;
  p50Ms: number;
  p99Ms: number;
  slowest: Answer | undefined;
  failures: number;
  failureKinds: Record<string, number>;
}

export interface OnlineIndexReport {
  date: string;
  machine: Machine;
  rows: number;
  load: string;
  /** From starting `db:migrate` to its exit. */
  buildSeconds: number;
  /** Each migration's own duration, as it recorded it in schema_migrations. */
  migrations: Array<{ name: string; seconds: number }>;
  periods: PeriodStats[];
}

/**
 * `--mode online-index`: the service runs on `rows` users under a steady load of reads and writes;
 * the finding indexes and their migration records are dropped, and `db:migrate` builds them again
 * (ALGORITHM=INPLACE, LOCK=NONE) while every answer's latency and status is recorded: before,
 * during and after the build. Writes bench/results/online-index-latest.json.
 */
export async function runOnlineIndex(options: BenchOptions): Promise<void> {
  const db = await createBenchDatabase();
  onCleanup(() => db.drop());
  const password = `bench-${randomBytes(6).toString('hex')}`;
  const service = await startService(db.config, password, options);
  progress(`loading ${options.rows} users into ${db.config.database}`);
  await db.resetUsers(options.rows);
  const admin = await mysql.createConnection({ ...serverFromEnv(), database: db.config.database, charset: 'utf8mb4' });
  onCleanup(() => admin.end());
  const drops = indexMigrations.map((migration) => `DROP INDEX IF EXISTS ${migration.index}`).join(', ');
  await admin.query(`ALTER TABLE users ${drops}`);
  await admin.query('DELETE FROM schema_migrations WHERE version IN (?)', [indexMigrations.map((migration) => migration.version)]);
  progress(`the loaded table is being written out: ${fixed(await settled(admin), 1)} s`);

  const load = `${LOAD_PER_SECOND} requests/s over ${LOAD_CONNECTIONS} connections: 80% GET /api/users/{id}, 10% POST, 10% PUT`;
  progress(`steady load: ${load}; ${WARMUP_SECONDS} s of warm-up, ${QUIET_SECONDS} s before the build`);
  const running = startSteadyLoad(service.baseUrl, scenarioNamed('mixed'), password, LOAD_CONNECTIONS, LOAD_PER_SECOND);
  await sleep((WARMUP_SECONDS + QUIET_SECONDS) * 1000);
  progress('db:migrate: building the indexes again');
  const buildStart = performance.now() - running.startedAt;
  await migrate(db.config);
  const buildEnd = performance.now() - running.startedAt;
  progress(`built in ${fixed((buildEnd - buildStart) / 1000, 1)} s; ${QUIET_SECONDS} s after the build`);
  await sleep(QUIET_SECONDS * 1000);
  const loadEnd = performance.now() - running.startedAt;
  const answers = await running.stop();
  closeTimedConnections();
  await service.stop();

  const [recorded] = await admin.query('SELECT name, duration_ms FROM schema_migrations WHERE version IN (?) ORDER BY version', [
    indexMigrations.map((migration) => migration.version),
  ]);
  const [present] = await admin.query("SELECT DISTINCT index_name AS name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'users'");
  const missing = indexMigrations.filter((migration) => !(present as Array<{ name: string }>).some((row) => row.name === migration.index));
  if (missing.length > 0) throw new Error(`db:migrate left ${missing.map((migration) => migration.index).join(', ')} missing`);

  const report: OnlineIndexReport = {
    date: new Date().toISOString(),
    machine: describeMachine(await db.serverVersion()),
    rows: options.rows,
    load,
    buildSeconds: (buildEnd - buildStart) / 1000,
    migrations: (recorded as Array<{ name: string; duration_ms: number }>).map((row) => ({ name: row.name, seconds: row.duration_ms / 1000 })),
    periods: [
      periodStats('before the build', answers, WARMUP_SECONDS * 1000, buildStart),
      periodStats('during the build', answers, buildStart, buildEnd),
      periodStats('after the build', answers, buildEnd, loadEnd),
    ],
  };
  console.log(onlineIndexTable(report));
  progress(`results written to ${await writeResults('online-index-latest.json', report)}`);
}

/** Runs the entry point of `npm run db:migrate` (compiled, with --runner build) against the benchmark's database. */
async function migrate(db: DbConfig): Promise<void> {
  const env = { ...process.env, DB_HOST: serverName(db), DB_USER: db.user, DB_PASSWORD: db.password, DB_NAME: db.database, LOG_FORMAT: 'json' };
  const child = startChild(process.execPath, [...nodeArgsFor('src/commands/db-migrate.ts'), '--embedded-by-default'], ['ignore', 'pipe', 'pipe'], env);
  await outputOnSuccess(child, 3_600_000, 'db:migrate');
}

/** The answers to requests sent from `fromMs` until `toMs`. */
export function periodStats(period: string, answers: readonly Answer[], fromMs: number, toMs: number): PeriodStats {
  const within = answers.filter((answer) => answer.sentAtMs >= fromMs && answer.sentAtMs < toMs);
  const times = within.map((answer) => answer.ms).sort((a, b) => a - b);
  const at = (p: number) => (times.length === 0 ? 0 : times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)]!);
  const failureKinds: Record<string, number> = {};
  for (const answer of within) if (!answer.ok) failureKinds[answer.outcome] = (failureKinds[answer.outcome] ?? 0) + 1;
  return {
    period,
    seconds: (toMs - fromMs) / 1000,
    answers: within.length,
    p50Ms: at(50),
    p99Ms: at(99),
    slowest: within.reduce<Answer | undefined>((slowest, answer) => (slowest && slowest.ms >= answer.ms ? slowest : answer), undefined),
    failures: within.filter((answer) => !answer.ok).length,
    failureKinds,
  };
}

export function onlineIndexTable(report: OnlineIndexReport): string {
  const rows = report.periods.map((p) => [
    p.period,
    fixed(p.seconds, 1),
    String(p.answers),
    fixed(p.answers / p.seconds, 0),
    fixed(p.p50Ms, 1),
    fixed(p.p99Ms, 1),
    p.slowest ? `${fixed(p.slowest.ms, 1)} (${p.slowest.method} ${p.slowest.path.replace(/pwd=[^&]*/, 'pwd=…')})` : '-',
    p.failures === 0 ? '0' : `${p.failures} (${Object.entries(p.failureKinds).map(([kind, count]) => `${kind}:${count}`).join(' ')})`,
  ]);
  return [
    `${machineLine(report.machine)}; ${report.rows} users; steady load of ${report.load}`,
    `db:migrate built the indexes in ${fixed(report.buildSeconds, 1)} s (as recorded: ` +
      `${report.migrations.map((m) => `${m.name} ${fixed(m.seconds, 1)} s`).join(', ')}), the service answering throughout.`,
    'Each answer counts in the period its request was sent in.',
    formatTable(['period', 'seconds', 'answers', 'req/s', 'p50 ms', 'p99 ms', 'slowest ms', 'failures'], rows),
  ].join('\n');
}

/**
 * Waits (at most SETTLE_LIMIT_SECONDS) until InnoDB has written out most of the freshly loaded
 * table: for about 15 s after a million rows its flushing takes the cores and disk the period
 * before the build is measured on. Resolves with the seconds waited.
 */
async function settled(admin: mysql.Connection): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < SETTLE_LIMIT_SECONDS * 1000) {
    const [rows] = await admin.query(
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_buffer_pool_pages_dirty', 'Innodb_buffer_pool_pages_total')",
    );
    const value = (name: string) => Number((rows as Array<{ Variable_name: string; Value: string }>).find((row) => row.Variable_name === name)?.Value);
    if (value('Innodb_buffer_pool_pages_dirty') <= SETTLED_DIRTY_SHARE * value('Innodb_buffer_pool_pages_total')) break;
    await sleep(500);
  }
  return (performance.now() - started) / 1000;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
