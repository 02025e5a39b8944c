import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { hookTargets } from '../../bench/hook-targets.js';
import { parseOptions } from '../../bench/options.js';

/** The benchmark's refusal of these arguments: its exit status and what it said. */
function refusal(args: string[]): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

describe('bench options for webhook endpoints', () => {
  test('--endpoints takes the counts the webhooks mode measures, in order', () => {
    assert.deepEqual(parseOptions(['--mode', 'webhooks', '--endpoints', '1,10,100']).endpoints, [1, 10, 100]);
  });

  test('--api-endpoints takes one count for the throughput mode with events on', () => {
    const options = parseOptions(['--events', 'on', '--webhook-urls', '1', '--api-endpoints', '100']);
    assert.equal(options.apiEndpoints, 100);
    assert.equal(options.webhookUrls, 1);
  });

  const refused: Array<[string, string[], RegExp]> = [
    ['a count of 0', ['--mode', 'webhooks', '--endpoints', '1,0'], /--endpoints takes counts from 1 to 1000, got "1,0"/],
    ['a count over 1000', ['--mode', 'webhooks', '--endpoints', '1001'], /--endpoints takes counts from 1 to 1000/],
    ['a count that is no whole number', ['--mode', 'webhooks', '--endpoints', '2.5'], /--endpoints takes counts from 1 to 1000/],
    ['--endpoints outside the webhooks mode', ['--endpoints', '10'], /--endpoints is for the webhooks mode/],
    ['--api-endpoints without events on', ['--api-endpoints', '10'], /--webhook-urls and --api-endpoints are for the throughput mode with --events on/],
  ];
  for (const [name, args, message] of refused) {
    test(`refused with a message and exit status 2: ${name}`, () => {
      const { status, stderr } = refusal(args);
      assert.equal(status, 2);
      assert.match(stderr, message);
    });
  }
});

describe('hookTargets: where the throughput mode sends its events', () => {
  test('--webhook-urls 1 names one receiver in WEBHOOK_URLS for every side, with a secret', async (t) => {
    const hooks = await hookTargets(parseOptions(['--events', 'on', '--webhook-urls', '1']));
    assert.ok(hooks);
    t.after(() => hooks.stop());
    assert.match(hooks.env.WEBHOOK_URLS!, /^http:\/\/127\.0\.0\.1:\d+\/operator$/);
    assert.match(hooks.env.WEBHOOK_SECRET!, /^whsec_/);
    assert.deepEqual(hooks.currentEnv, {});
  });

  test('--api-endpoints replaces WEBHOOK_URLS on the sides of this build only, and lets their deliveries reach the local receiver', async (t) => {
    const hooks = await hookTargets(parseOptions(['--events', 'on', '--webhook-urls', '1', '--api-endpoints', '100']));
    assert.ok(hooks);
    t.after(() => hooks.stop());
    assert.ok(hooks.env.WEBHOOK_URLS, 'a baseline keeps its WEBHOOK_URLS endpoint');
    assert.deepEqual({ ...hooks.env, ...hooks.currentEnv }.WEBHOOK_URLS, '');
    assert.equal(hooks.currentEnv.WEBHOOK_ALLOW_NETWORKS, '127.0.0.0/8');
  });

  test('without either option no receiver is started', async () => {
    assert.equal(await hookTargets(parseOptions(['--events', 'on'])), undefined);
  });
});
