import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpOperation } from './http-load.js';
import { jsonMarkedLine, startChild } from './lifecycle.js';
import type { Measurement } from './measurement.js';
import type { BenchOptions } from './options.js';
import { cpuWatch, type MeasuredPids } from './proc.js';
import { ROTATING_IDS, type Scenario } from './workload.js';

/**
 * Requests a wrk run cycles through. Two rotations of the ids: an id's next update always carries
 * values other than those it holds, so every update changes its row (an unchanged row is a cheaper write).
 */
const CYCLE = 2 * ROTATING_IDS;
const RESULT_MARK = 'BENCH_RESULT ';

/** `wrk 4.1.0 ...` when wrk is on the PATH. */
export function wrkVersion(): string | undefined {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (probe.error) return undefined;
  return /wrk \S+/.exec(probe.stdout + probe.stderr)?.[0];
}

interface WrkResult {
  requests: number;
  durationUs: number;
  p50Us: number;
  p99Us: number;
  connectErrors: number;
  readErrors: number;
  writeErrors: number;
  timeouts: number;
  /** Responses whose status the scenario never expects, by status. */
  unexpected: Record<string, number>;
}

/**
 * Runs the scenario's requests against baseUrl with wrk (one thread, `connections` connections):
 * an unmeasured warm-up, then the measured run. The requests are the same as the autocannon
 * driver's (httpOperation), cycled; a response whose status is not one the scenario expects counts
 * as an error. `pids` are the processes whose CPU time is reported per request.
 */
export async function measureHttpWithWrk(
  baseUrl: string,
  pids: MeasuredPids,
  scenario: Scenario,
  password: string,
  options: BenchOptions,
): Promise<Measurement> {
  const folder = await mkdtemp(join(tmpdir(), 'bench-wrk-'));
  try {
    const script = join(folder, `${scenario.name}.lua`);
    await writeFile(script, luaScript(scenario, password));
    const run = (seconds: number): Promise<WrkResult> => runWrk(baseUrl, script, seconds, options.connections);
    if (options.warmupSec > 0) await run(options.warmupSec);
    const cpu = cpuWatch(pids);
    const result = await run(options.durationSec);
    const measured = toMeasurement(result);
    return { ...measured, ...cpu.stop(measured.ok) };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function runWrk(baseUrl: string, script: string, seconds: number, connections: number): Promise<WrkResult> {
  const wholeSeconds = Math.max(1, Math.round(seconds));
  const child = startChild('wrk', ['-t1', `-c${connections}`, `-d${wholeSeconds}s`, '--timeout', '5s', '-s', script, baseUrl], [
    'ignore',
    'pipe',
    'pipe',
  ]);
  return jsonMarkedLine<WrkResult>(child, RESULT_MARK, (wholeSeconds + 30) * 1000, 'wrk');
}

function toMeasurement(result: WrkResult): Measurement {
  const errorKinds: Record<string, number> = {};
  const add = (kind: string, count: number): void => {
    if (count > 0) errorKinds[kind] = (errorKinds[kind] ?? 0) + count;
  };
  for (const [status, count] of Object.entries(result.unexpected)) add(status, count);
  add('timeout', result.timeouts);
  add('connection error', result.connectErrors + result.readErrors + result.writeErrors);
  const unexpected = Object.values(result.unexpected).reduce((sum, count) => sum + count, 0);
  const ok = result.requests - unexpected;
  const seconds = result.durationUs / 1e6;
  return {
    reqPerSec: ok / seconds,
    p50Ms: result.p50Us / 1000,
    p99Ms: result.p99Us / 1000,
    ok,
    errors: Object.values(errorKinds).reduce((sum, count) => sum + count, 0),
    errorKinds,
    seconds,
    cpuUsPerOp: null,
  };
}

/**
 * A wrk script that sends the scenario's first CYCLE requests over and over, counts responses
 * with a status the scenario never expects, and prints the outcome as one marked JSON line.
 * wrk hands responses to the script without saying which request they answer, so a mixed
 * scenario checks each status against the set of statuses it expects.
 */
export function luaScript(scenario: Scenario, password: string): string {
  const operations = Array.from({ length: CYCLE }, (_, n) => httpOperation(scenario, n, password));
  const expected = [...new Set(operations.map((operation) => operation.expectedStatus))];
  const cycle = operations.map(({ method, path, body }) =>
    `  {${luaString(method)}, ${luaString(path)}${body === undefined ? '' : `, ${luaString(body)}`}},`,
  );
  return `-- Written by bench/wrk-load.ts for the ${scenario.name} scenario.
local cycle = {
${cycle.join('\n')}
}
local expected = {${expected.map((status) => `[${status}] = true`).join(', ')}}
local requests = {}
local n = 0
unexpected = {}
threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  for i, operation in ipairs(cycle) do
    local headers = {}
    if operation[3] then headers["Content-Type"] = "application/json" end
    requests[i] = wrk.format(operation[1], operation[2], headers, operation[3])
  end
end

function request()
  n = n % #requests + 1
  return requests[n]
end

function response(status)
  if not expected[status] then unexpected[status] = (unexpected[status] or 0) + 1 end
end

function done(summary, latency, requests)
  local byStatus = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("unexpected")) do
      byStatus[status] = (byStatus[status] or 0) + count
    end
  end
  local counts = {}
  for status, count in pairs(byStatus) do counts[#counts + 1] = string.format('"%d":%d', status, count) end
  local e = summary.errors
  io.write(string.format(
    '\\n${RESULT_MARK}{"requests":%d,"durationUs":%d,"p50Us":%.0f,"p99Us":%.0f,' ..
    '"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"timeouts":%d,"unexpected":{%s}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.timeout, table.concat(counts, ",")))
end
`;
}

/** A Lua string literal of the text's UTF-8 bytes: printable ASCII as is, every other byte as a decimal escape. */
export function luaString(text: string): string {
  let literal = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    const printable = byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c;
    literal += printable ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, '0')}`;
  }
  return literal + '"';
}
