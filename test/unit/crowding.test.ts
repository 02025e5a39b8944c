import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Crowding } from '../../src/events/webhooks/crowding.js';
import type { DeliveryPace } from '../../src/events/webhooks/delivery-pace.js';
import { countRequest } from '../../src/load/request-count.js';

/** Keeps the event loop busy, as a flood of requests (or of deliveries) would. */
function busyFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/** What the sample taken after a busy spell said. */
async function nextVerdict(verdicts: boolean[], during: () => void): Promise<boolean> {
  const before = verdicts.length;
  during();
  while (verdicts.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
  return verdicts[before]!;
}

test('Crowding: a busy event loop is crowding only while requests are being served; delivery alone keeping it busy is not', async (t) => {
  const verdicts: boolean[] = [];
  const crowding = new Crowding({ crowd: (crowded: boolean) => verdicts.push(crowded) } as unknown as DeliveryPace);
  crowding.start();
  t.after(() => crowding.stop());
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(verdicts.at(-1), false, 'an idle process is not crowded');

  assert.equal(await nextVerdict(verdicts, () => busyFor(300)), false, 'busy without requests');
  assert.equal(
    await nextVerdict(verdicts, () => {
      countRequest();
      busyFor(300);
    }),
    true,
    'busy while serving requests',
  );
  assert.equal(await nextVerdict(verdicts, () => countRequest()), false, 'requests, but an idle loop');
});
