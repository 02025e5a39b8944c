import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { parseOptions } from '../../bench/options.js';

describe('bench options for the instructions mode', () => {
  test('--requests sets the requests per count; 2000 unless given', () => {
    assert.equal(parseOptions(['--mode', 'instructions']).requests, 2000);
    assert.equal(parseOptions(['--mode', 'instructions', '--requests', '500']).requests, 500);
  });

  test('--baseline is taken by the instructions mode', () => {
    const options = parseOptions(['--mode', 'instructions', '--baseline', 'HEAD', '--scenarios', 'get-one,create,mixed']);
    assert.equal(options.mode, 'instructions');
    assert.equal(options.baseline, 'HEAD');
    assert.deepEqual(options.scenarios, ['get-one', 'create', 'mixed']);
  });

  test('--tls adds this build over HTTPS to the instructions mode; off unless given', () => {
    assert.equal(parseOptions(['--mode', 'instructions']).tls, false);
    assert.equal(parseOptions(['--mode', 'instructions', '--tls']).tls, true);
  });

  test('--tls outside the instructions mode is refused with a message and exit status 2', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--mode', 'throughput', '--tls'], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /--tls is for the instructions mode/);
  });

  test('--export sets the sampling ratio of an exporting side; none unless given', () => {
    assert.equal(parseOptions(['--mode', 'instructions']).exportRatio, undefined);
    assert.equal(parseOptions(['--mode', 'instructions', '--export', '0.1']).exportRatio, 0.1);
    assert.equal(parseOptions(['--mode', 'instructions', '--export', '1']).exportRatio, 1);
  });

  for (const value of ['1.5', '-0.1', 'half', '']) {
    test(`--export ${JSON.stringify(value)} is refused with a message and exit status 2`, () => {
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--mode', 'instructions', `--export=${value}`], { encoding: 'utf8' });
      assert.equal(run.status, 2);
      assert.match(run.stderr, /--export must be a ratio from 0 to 1/);
    });
  }

  for (const value of ['0', '0.2', 'many']) {
    test(`--requests ${value} is refused with a message and exit status 2`, () => {
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--mode', 'instructions', '--requests', value], { encoding: 'utf8' });
      assert.equal(run.status, 2);
      assert.match(run.stderr, /--requests must be a positive number/);
    });
  }
});
