import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareBaseline } from './baseline.js';
import { selfSignedCertificate } from './certificates.js';
import { startCollector } from './collector.js';
import { createBenchDatabase } from './database.js';
import { onCleanup, startChild } from './lifecycle.js';
import { chooseLoad } from './load-generator.js';
import { medianRun, type Measurement } from './measurement.js';
import type { BenchOptions } from './options.js';
import { describeMachine, fixed, formatTable, machineLine, progress, writeResults } from './report.js';
import { startService, type RunningService } from './service.js';
import { scenarioNamed } from './workload.js';

interface Side {
  label: string;
  env: Record<string, string>;
  baseline?: boolean;
  /** Only these scenarios (HTTPS is measured on get-one). */
  only?: string[];
}

interface Row {
  scenario: string;
  label: string;
  median: Measurement;
  /** Against the service with nothing configured, in the same rounds. */
  ratio: number;
}

/**
 * `--mode tracing`: what trace context, span export and HTTPS cost, every side in the same rounds.
 * - nothing configured (this checkout), and the --baseline commit's service: what traceparent costs;
 * - OTLP export at ratio 0.1 and 1.0, to a collector in this process that takes every export;
 * - HTTPS with keep-alive (get-one only);
 * then new connections per second (a request each, `Connection: close`) on /healthz, HTTP and HTTPS.
 */
export async function runTracing(options: BenchOptions): Promise<void> {
  const db = await createBenchDatabase();
  onCleanup(() => db.drop());
  const password = `bench-${randomBytes(6).toString('hex')}`;
  const collector = await startCollector();
  onCleanup(() => new Promise<void>((resolve) => collector.server.close(() => resolve())));
  const certs = selfSignedCertificate();
  onCleanup(async () => rmSync(certs.dir, { recursive: true, force: true }));
  const baseline = options.baseline === undefined ? undefined : prepareBaseline(options.baseline);
  const endpoint = collector.url;
  const sides: Side[] = [
    { label: 'nothing configured', env: {} },
    ...(baseline ? [{ label: `baseline ${baseline.ref}`, env: {}, baseline: true }] : []),
    { label: 'export, ratio 0.1', env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER_ARG: '0.1' } },
    { label: 'export, ratio 1.0', env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER_ARG: '1' } },
    { label: 'HTTPS keep-alive', env: { TLS_CERT_FILE: certs.cert, TLS_KEY_FILE: certs.key }, only: ['get-one'] },
  ];
  const services: RunningService[] = [];
  onCleanup(async () => {
    for (const service of services) await service.stop();
  });
  for (const side of sides) services.push(await startService(db.config, password, { ...options, env: side.env }, side.baseline ? baseline!.entry : undefined));
  const measure = chooseLoad(options.load).measure;
  const dbPid = await db.serverPid();
  const rows: Row[] = [];
  for (const name of options.scenarios) {
    const scenario = scenarioNamed(name);
    const measured = sides.map((side, i) => ({ side, i })).filter(({ side }) => side.only === undefined || side.only.includes(name));
    const runs: Measurement[][] = measured.map(() => []);
    for (let run = 1; run <= options.repeat; run++) {
      for (let k = 0; k < measured.length; k++) {
        const j = (k + run - 1) % measured.length;
        const { side, i } = measured[j]!;
        progress(`${name}: ${side.label} (run ${run} of ${options.repeat})`);
        await db.resetUsers(scenario.tableRows, scenario.writes ? 'writes' : 'reads');
        runs[j]!.push(await measure(services[i]!.baseUrl, { server: services[i]!.pid, database: dbPid }, scenario, password, options));
      }
    }
    const plain = medianRun(runs[0]!);
    measured.forEach(({ side }, j) => {
      const median = medianRun(runs[j]!);
      rows.push({ scenario: name, label: side.label, median, ratio: median.reqPerSec / plain.reqPerSec });
    });
  }
  const handshakes = await newConnections(services[0]!, services[sides.length - 1]!, options);
  const http2 = await overHttp2(services[sides.length - 1]!, options);
  const machine = describeMachine(await db.serverVersion());
  console.log(
    [
      `${machineLine(machine)}; ${options.durationSec} s per run, ${options.connections} connections, WORKERS=${options.workers}`,
      `Each row: the median of ${options.repeat} alternating runs by req/s; x: against nothing configured in the same rounds. Spans taken by the collector: ${collector.exports()} exports.`,
      formatTable(
        ['scenario', 'side', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'CPU us/op', 'x nothing configured'],
        rows.map((row) => [row.scenario, row.label, fixed(row.median.reqPerSec, 0), fixed(row.median.p50Ms, 2), fixed(row.median.p99Ms, 2), String(row.median.errors), row.median.cpuUsPerOp === null ? '-' : fixed(row.median.cpuUsPerOp, 0), fixed(row.ratio, 2)]),
      ),
      `\nNew connections per second (GET /healthz, Connection: close, ${options.connections} connections, median of ${options.repeat}):`,
      formatTable(['protocol', 'connections/s', 'x HTTP'], [
        ['HTTP', fixed(handshakes.http, 0), '1.00'],
        ['HTTPS (TLS 1.3, P-256)', fixed(handshakes.https, 0), fixed(handshakes.https / handshakes.http, 2)],
      ]),
      http2 === undefined
        ? '\nHTTP/2 not measured: h2load is not installed (apt-get install nghttp2-client).'
        : `\nget-one over HTTPS with HTTP/2 (h2load, ${options.connections} connections, median of ${options.repeat}):\n${formatTable(
            ['streams per connection', 'req/s', 'x HTTPS keep-alive (HTTP/1.1, wrk)'],
            http2.map((row) => [String(row.streams), fixed(row.reqPerSec, 0), fixed(row.reqPerSec / (rows.find((each) => each.scenario === 'get-one' && each.label === 'HTTPS keep-alive')?.median.reqPerSec ?? NaN), 2)]),
          )}`,
    ].join('\n'),
  );
  progress(`results written to ${await writeResults('tracing.json', { date: new Date().toISOString(), machine, options, rows, handshakes, http2 })}`);
}

/** An OTLP/HTTP collector that takes every export (200) and counts them. */
/** wrk with a new connection per request: how many connections (TCP, and TLS handshakes over HTTPS) the service takes per second. */
async function newConnections(http: RunningService, https: RunningService, options: BenchOptions): Promise<{ http: number; https: number }> {
  const rate = async (service: RunningService): Promise<number> => {
    const runs: number[] = [];
    for (let run = 0; run < options.repeat; run++) {
      const child = startChild('wrk', ['-t1', `-c${options.connections}`, `-d${Math.max(1, Math.round(options.durationSec))}s`, '-H', 'Connection: close', `${service.baseUrl}/healthz`], ['ignore', 'pipe', 'pipe']);
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      await new Promise((resolve) => child.once('exit', resolve));
      runs.push(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0));
    }
    return runs.sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
  };
  progress('new connections per second: HTTP');
  const plain = await rate(http);
  progress('new connections per second: HTTPS');
  return { http: plain, https: await rate(https) };
}

/** get-one over HTTP/2 with h2load (when installed): one stream per connection, then eight. */
async function overHttp2(https: RunningService, options: BenchOptions): Promise<Array<{ streams: number; reqPerSec: number }> | undefined> {
  try {
    execFileSync('h2load', ['--version'], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-h2-'));
  try {
    const uris = join(dir, 'uris');
    writeFileSync(uris, Array.from({ length: 100 }, (_, i) => `${https.baseUrl}/api/users/${(i % 10) + 1}`).join('\n'));
    const results: Array<{ streams: number; reqPerSec: number }> = [];
    for (const streams of [1, 8]) {
      const runs: number[] = [];
      for (let run = 0; run < options.repeat; run++) {
        progress(`get-one over HTTP/2, ${streams} stream(s) per connection (run ${run + 1} of ${options.repeat})`);
        const child = startChild('h2load', ['-t1', `-c${options.connections}`, `-m${streams}`, `-D${Math.max(1, Math.round(options.durationSec))}`, `--warm-up-time=${Math.max(1, Math.round(options.warmupSec))}`, '-i', uris], ['ignore', 'pipe', 'pipe']);
        let out = '';
        child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
        await new Promise((resolve) => child.once('exit', resolve));
        const failed = Number(/(\d+) failed/.exec(out)?.[1] ?? 0) + Number(/(\d+) errored/.exec(out)?.[1] ?? 0);
        runs.push(failed > 0 ? 0 : Number(/finished in [\d.]+s, ([\d.]+) req\/s/.exec(out)?.[1] ?? 0));
      }
      results.push({ streams, reqPerSec: runs.sort((a, b) => a - b)[Math.floor(runs.length / 2)]! });
    }
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
