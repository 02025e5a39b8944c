/**
 * `--mode streams`: change-event streams at scale on one service (EVENTS=on). For each step of
 * `--listeners` (e.g. `10,1000,2000,10000@2`: 10 000 listeners at 2 writes/s), it opens that many
 * streams from a process of their own, creates users at a steady rate for `--duration` seconds,
 * and reports what a new event cost the database (statements per event, from the server's own
 * counters: the database is a private server started for the run, so nothing else counts), how long
 * each event took from its write's answer to each stream (p50, p99, max, and the slowest event's
 * last arrival), the service's memory per open stream, and whether every stream received every
 * event, in the same order, without being closed.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { startPrivateServer } from '../src/embedded-db/index.js';
import { freePorts } from '../test/helpers/free-ports.js';
import { createBenchDatabase } from './database.js';
import { onCleanup, startTsChild, stopChild } from './lifecycle.js';
import type { BenchOptions } from './options.js';
import { readProcessMemory } from './proc.js';
import { describeMachine, fixed, formatTable, machineLine, progress, writeResults } from './report.js';
import { startService, type RunningService } from './service.js';
import type { ListenerCommand, ListenerMessage, ListenerReport } from './stream-listeners.js';

export interface StreamStep {
  listeners: number;
  writesPerSecond: number;
}

export interface StreamFigures extends StreamStep {
  opened: number;
  events: number;
  /** Statements the server executed (its Questions counter) per event, and reads (Com_select) per event. */
  statementsPerEvent: number;
  selectsPerEvent: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** For each event, when it reached the last stream; the slowest of those. */
  slowestEventAllStreamsMs: number;
  /** Service RSS with the streams open, less before they opened, over the streams. */
  kbPerStream: number;
  /** Streams that missed an event, got one twice or out of order, or differ from the outbox. */
  streamsWrong: number;
  streamsClosed: number;
}

/** Parses `10,1000,10000@2`: listeners, each at `defaultRate` writes/s unless `@rate` says otherwise. */
export function parseSteps(text: string, defaultRate: number): StreamStep[] {
  return text.split(',').map((part) => {
    const [count, rate] = part.trim().split('@');
    const step = { listeners: Number(count), writesPerSecond: rate === undefined ? defaultRate : Number(rate) };
    if (!Number.isInteger(step.listeners) || step.listeners < 1 || !(step.writesPerSecond > 0)) throw new Error(`--listeners: "${part}" is not <count> or <count>@<writes per second>`);
    return step;
  });
}

/** The soft limit on open files of this process (inherited by the service and the listeners). */
export function openFilesLimit(): number {
  const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return line?.[1] === 'unlimited' ? Infinity : Number(line?.[1] ?? 1024);
}

export async function runStreams(options: BenchOptions): Promise<void> {
  const steps = parseSteps(options.listeners, options.rate);
  const most = Math.max(...steps.map((step) => step.listeners));
  // Each stream is a socket in the service and one in the listeners' process, with room to spare.
  const needed = most + 500;
  if (openFilesLimit() < needed) {
    throw new Error(`${most} streams need at least ${needed} open files per process; this shell allows ${openFilesLimit()}: run \`ulimit -n ${needed + 1000}\` (as root, or within the hard limit) and again`);
  }
  const server = await privateServer();
  const db = await createBenchDatabase({ host: '127.0.0.1', port: server.port, user: 'root', password: '' });
  onCleanup(() => db.drop());
  const password = `bench-${randomBytes(6).toString('hex')}`;
  const service = await startService(db.config, password, { ...options, env: { EVENTS: 'on' } });
  const counters = await mysql.createConnection({ host: '127.0.0.1', port: server.port, user: 'root' });
  onCleanup(() => counters.end());
  const figures: StreamFigures[] = [];
  for (const step of steps) figures.push(await measureStep(step, service, password, counters, options));
  await service.stop();

  const machine = describeMachine(await db.serverVersion());
  console.log(streamsTable(machineLine(machine), options, figures));
  progress(`results written to ${await writeResults('streams.json', { date: new Date().toISOString(), machine, options, figures })}`);
}

async function privateServer(): Promise<{ port: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'usvc-bench-streams-'));
  const [port] = await freePorts(1);
  const server = await startPrivateServer({ dataDir: join(dir, 'data'), port: port! });
  onCleanup(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return { port: port! };
}

async function measureStep(step: StreamStep, service: RunningService, password: string, counters: mysql.Connection, options: BenchOptions): Promise<StreamFigures> {
  progress(`streams: opening ${step.listeners}`);
  const rssBefore = readProcessMemory(service.pid).rssMb;
  const listeners = startTsChild('bench/stream-listeners.ts', ['ignore', 'ignore', 'inherit', 'ipc']);
  try {
    const opened = await ask<{ opened: number; failed: number }>(listeners, { open: { url: `${service.baseUrl}/api/users/events?pwd=${password}`, count: step.listeners } }, 'opened');
    // Let the service settle (its garbage collected) before reading its memory.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const kbPerStream = ((readProcessMemory(service.pid).rssMb - rssBefore) * 1024) / Math.max(1, opened.opened);

    progress(`streams: ${opened.opened} open (${opened.failed} refused); ${step.writesPerSecond} creates/s for ${options.durationSec} s`);
    const before = await serverCounters(counters);
    const answered = await writeSteadily(service.baseUrl, step.writesPerSecond, options.durationSec);
    const report = await waitForEveryEvent(listeners, answered.size);
    const after = await serverCounters(counters);
    const events = answered.size;
    return {
      ...step,
      opened: opened.opened,
      events,
      statementsPerEvent: (after.questions - before.questions) / events,
      selectsPerEvent: (after.selects - before.selects) / events,
      ...delays(report, answered),
      kbPerStream,
      streamsWrong: wrongStreams(report, events),
      streamsClosed: report.closed,
    };
  } finally {
    listeners.send({ close: true } satisfies ListenerCommand);
    await stopChild(listeners);
  }
}

/** Creates users one after another at `perSecond`, each named by its request id; resolves with when each was answered 201 (hrtime ms). */
async function writeSteadily(baseUrl: string, perSecond: number, seconds: number): Promise<Map<string, number>> {
  const answered = new Map<string, number>();
  const started = performance.now();
  for (let n = 0; n < perSecond * seconds; n++) {
    const due = started + (n * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const requestId = `bench-stream-${n}`;
    const res = await fetch(`${baseUrl}/api/users`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId },
      body: JSON.stringify({ name: `Streamed ${n}`, email: `streamed${n}@bench.example` }),
    });
    await res.arrayBuffer();
    if (res.status === 201) answered.set(requestId, Number(process.hrtime.bigint()) / 1e6);
  }
  return answered;
}

/** Asks the listeners for what they received until every stream has every event (or 60 s have passed). */
async function waitForEveryEvent(listeners: ChildProcess, events: number): Promise<ListenerReport> {
  const giveUpAt = performance.now() + 60_000;
  for (;;) {
    const { report } = await ask<{ report: ListenerReport }>(listeners, { report: true }, 'report');
    const complete = report.ids.every((ids) => ids.length >= events);
    if (complete || performance.now() > giveUpAt) return report;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function delays(report: ListenerReport, answered: Map<string, number>): Pick<StreamFigures, 'p50Ms' | 'p99Ms' | 'maxMs' | 'slowestEventAllStreamsMs'> {
  const all: number[] = [];
  const lastArrival = new Map<string, number>();
  for (const arrivals of report.arrivals) {
    for (const [requestId, at] of Object.entries(arrivals)) {
      const sent = answered.get(requestId);
      if (sent === undefined) continue;
      all.push(at - sent);
      lastArrival.set(requestId, Math.max(lastArrival.get(requestId) ?? -Infinity, at - sent));
    }
  }
  all.sort((a, b) => a - b);
  const at = (p: number): number => all[Math.min(all.length - 1, Math.floor((p / 100) * all.length))] ?? NaN;
  return { p50Ms: at(50), p99Ms: at(99), maxMs: all.at(-1) ?? NaN, slowestEventAllStreamsMs: Math.max(...lastArrival.values()) };
}

/** Streams whose ids are not the same run, one by one without a hole, of `events` events as the first stream's. */
function wrongStreams(report: ListenerReport, events: number): number {
  const reference = report.ids[0] ?? [];
  const expected = reference.length >= events ? reference.slice(-events) : [];
  const rising = expected.every((id, i) => i === 0 || id === expected[i - 1]! + 1);
  return report.ids.filter((ids) => !rising || ids.length !== events || ids.some((id, i) => id !== expected[i])).length;
}

function ask<T extends object>(child: ChildProcess, command: ListenerCommand, answerKey: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ListenerMessage): void => {
      if (!(answerKey in message)) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as T);
    };
    const onExit = (): void => reject(new Error('the listeners process exited'));
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send(command);
  });
}

interface ServerCounters {
  questions: number;
  selects: number;
}

async function serverCounters(connection: mysql.Connection): Promise<ServerCounters> {
  const [rows] = await connection.query<mysql.RowDataPacket[]>("SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions', 'Com_select')");
  const value = (name: string): number => Number(rows.find((row) => row.Variable_name === name)?.Value ?? NaN);
  // This connection's own SHOW counts once per reading; negligible beside the load's.
  return { questions: value('Questions'), selects: value('Com_select') };
}

export function streamsTable(machine: string, options: BenchOptions, figures: StreamFigures[]): string {
  return [
    `${machine}; WORKERS=${options.workers}, EVENTS=on, a private MariaDB for the run; each step ${options.durationSec} s of steady creates`,
    'statements/event: every statement the server executed during the step (Questions), over the events; selects/event: Com_select.',
    'delivery: from a create\'s 201 to its event on a stream, over every (stream, event); all streams: the slowest event\'s arrival on its last stream.',
    formatTable(
      ['streams', 'writes/s', 'events', 'statements/event', 'selects/event', 'p50 ms', 'p99 ms', 'max ms', 'all streams ms', 'KB/stream', 'wrong', 'closed'],
      figures.map((f) => [
        `${f.opened}/${f.listeners}`,
        fixed(f.writesPerSecond, 0),
        String(f.events),
        fixed(f.statementsPerEvent, 1),
        fixed(f.selectsPerEvent, 2),
        fixed(f.p50Ms, 1),
        fixed(f.p99Ms, 1),
        fixed(f.maxMs, 1),
        fixed(f.slowestEventAllStreamsMs, 1),
        fixed(f.kbPerStream, 1),
        String(f.streamsWrong),
        String(f.streamsClosed),
      ]),
    ),
  ].join('\n');
}
