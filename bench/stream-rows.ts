/**
 * A reference for the memory mode, run as its own process: mysql2 streams a list statement over one
 * connection configured as the service's, counting rows, with no HTTP. `listUsers` is the plain
 * table read; `listUsersAsJson` is the statement the service itself streams (each row nearly the
 * API's JSON, see its comment). Reads {db, statement} from BENCH_JOB and prints {rows, seconds, cpuSeconds, idleRssMb, peakRssMb, rssMb}:
 * idleRssMb is the RSS once connected, before the query.
 */
import type { DbConfig } from '../src/config/environment.js';
import { createPool, endPool } from '../src/db/pool.js';
import { defaultTuning } from '../src/db/pool-tuning.js';
import { plainListSql } from './database.js';
import { listStatements } from '../src/users/storage/list-statements.js';
import { readProcessMemory } from './proc.js';

export type ListStatement = 'listUsers' | 'listUsersAsJson';

const { db, statement } = JSON.parse(process.env.BENCH_JOB ?? '') as { db: DbConfig; statement: ListStatement };
const pool = createPool(db, { ...defaultTuning, connectionLimit: 1 });

const connection = await new Promise<import('mysql2').PoolConnection>((resolve, reject) =>
  pool.getConnection((error, conn) => (error ? reject(error) : resolve(conn))),
);
const idleRssMb = readProcessMemory('self').rssMb;
const started = performance.now();
const cpuBefore = process.cpuUsage();
const rows = await new Promise<number>((resolve, reject) => {
  let count = 0;
  connection
    .query(statement === 'listUsers' ? plainListSql : listStatements.all)
    .on('result', () => count++)
    .on('error', reject)
    .on('end', () => resolve(count));
});
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
connection.release();
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
process.stdout.write(JSON.stringify({ rows, seconds, cpuSeconds, idleRssMb, ...readProcessMemory('self') }));
await endPool(pool);
