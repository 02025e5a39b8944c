import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { test } from 'node:test';
import { prepareBaseline } from '../../bench/baseline.js';
import type { Measurement } from '../../bench/measurement.js';
import { parseOptions } from '../../bench/options.js';
import { sidesOf, throughputTable, type ThroughputReport } from '../../bench/throughput.js';

const measured = (reqPerSec: number): Measurement => ({
  reqPerSec,
  p50Ms: 1,
  p99Ms: 3,
  ok: reqPerSec,
  errors: 0,
  errorKinds: {},
  seconds: 1,
  cpuUsPerOp: 30,
});

test('a baseline that names no commit is refused with the ref in the message', () => {
  assert.throws(() => prepareBaseline('no-such-ref-anywhere'), /--baseline: "no-such-ref-anywhere" names no commit/);
});

test('with a baseline the table gains its row per scenario and an x baseline column of req/s ratios', () => {
  const report: ThroughputReport = {
    date: '2026-11-25T00:00:00.000Z',
    machine: { cpuModel: 'cpu', cpus: 2, memoryGb: 24, os: 'Linux', node: 'v20', database: 'MariaDB' },
    options: parseOptions(['--repeat', '1']),
    loadGenerator: 'wrk',
    httpNoop: measured(40_000),
    httpNoopRuns: [],
    scenarios: [
      {
        name: 'get-one',
        tableRows: 1000,
        sides: [
          { label: 'service', baseline: false, events: false, median: measured(27_000), runs: [] },
          { label: 'baseline', baseline: true, events: false, median: measured(30_000), runs: [] },
        ],
        dbDirect: measured(25_000),
        dbDirectRuns: [],
      },
    ],
    baseline: { ref: 'v1', commit: '0123456789abcdef0123456789abcdef01234567' },
  };
  const lines = throughputTable(report).split('\n');
  assert.ok(lines.some((line) => line.includes('the service as of v1 (0123456789ab)')));
  assert.match(lines.find((line) => line.startsWith('scenario'))!, /x db-direct +x baseline$/);
  assert.match(lines.find((line) => line.startsWith('get-one'))!, /\s27000\s.*\s1\.08\s+0\.90$/);
  assert.match(lines.find((line) => /^\s+baseline\s/.test(line))!, /\s30000\s.*\s1\.20\s+1\.00$/);
});

test('--baseline belongs to the throughput, memory, startup, tracing and instructions modes', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--mode', 'finding', '--baseline', 'HEAD'], {
    encoding: 'utf8',
  });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /--baseline is for the throughput, memory, startup, tracing and instructions modes/);
});

test('a commit is exported, compiled to a runnable service entry, and reused by the next run', () => {
  const first = prepareBaseline('HEAD');
  assert.match(first.commit, /^[0-9a-f]{40}$/);
  assert.ok(existsSync(first.entry), 'the compiled entry exists');
  const check = spawnSync(process.execPath, ['--check', first.entry], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stderr);
  const builtAt = statSync(first.entry).mtimeMs;
  const second = prepareBaseline('HEAD');
  assert.equal(second.entry, first.entry);
  assert.equal(statSync(second.entry).mtimeMs, builtAt, 'the second run compiles nothing');
});

test('--events both measures each build with events off and on, and an x events off column compares the two', () => {
  const options = parseOptions(['--repeat', '1', '--events', 'both']);
  assert.deepEqual(
    sidesOf({ ...options, baseline: 'v1' }).map((side) => side.label),
    ['service', 'events on', 'baseline', 'baseline, events on'],
  );
  const report: ThroughputReport = {
    date: '2026-11-25T00:00:00.000Z',
    machine: { cpuModel: 'cpu', cpus: 2, memoryGb: 24, os: 'Linux', node: 'v20', database: 'MariaDB' },
    options,
    loadGenerator: 'wrk',
    httpNoop: measured(40_000),
    httpNoopRuns: [],
    scenarios: [
      {
        name: 'create',
        tableRows: 1000,
        sides: [
          { label: 'service', baseline: false, events: false, median: measured(20_000), runs: [] },
          { label: 'events on', baseline: false, events: true, median: measured(18_000), runs: [] },
        ],
        dbDirect: measured(10_000),
        dbDirectRuns: [],
      },
    ],
  };
  const lines = throughputTable(report).split('\n');
  assert.match(lines.find((line) => line.startsWith('scenario'))!, /x db-direct +x events off$/);
  assert.match(lines.find((line) => /^\s+events on\s/.test(line))!, /\s18000\s.*\s1\.80\s+0\.90$/);
});

test('--events belongs to the throughput mode', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--mode', 'memory', '--events', 'on'], { encoding: 'utf8' });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /--events is for the throughput mode/);
});

test('--direct-best adds db-direct at each concurrency, marks the best, and an x best direct column compares every row with it', () => {
  const options = parseOptions(['--repeat', '1', '--direct-best', '8,32']);
  assert.deepEqual(options.directConcurrency, [8, 32]);
  const report: ThroughputReport = {
    date: '2026-11-25T00:00:00.000Z',
    machine: { cpuModel: 'cpu', cpus: 2, memoryGb: 24, os: 'Linux', node: 'v20', database: 'MariaDB' },
    options,
    loadGenerator: 'wrk',
    httpNoop: measured(40_000),
    httpNoopRuns: [],
    scenarios: [
      {
        name: 'mixed',
        tableRows: 1000,
        sides: [{ label: 'service', baseline: false, events: false, median: measured(18_000), runs: [] }],
        dbDirect: measured(15_000),
        dbDirectRuns: [],
        directByConcurrency: [
          { concurrency: 8, median: measured(20_000), runs: [] },
          { concurrency: 32, median: measured(16_000), runs: [] },
        ],
        bestDirect: { concurrency: 8, median: measured(20_000) },
      },
    ],
  };
  const lines = throughputTable(report).split('\n');
  assert.match(lines.find((line) => line.startsWith('scenario'))!, /x db-direct +x best direct$/);
  assert.match(lines.find((line) => line.startsWith('mixed'))!, /\s18000\s.*\s1\.20\s+0\.90$/);
  assert.match(lines.find((line) => /direct c=8 \*/.test(line))!, /\s20000\s/);
});
