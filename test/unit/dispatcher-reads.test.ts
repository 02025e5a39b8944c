import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventLog, StoredEvent } from '../../src/events/event-log.js';
import type { EndpointRows } from '../../src/events/webhooks/endpoint-rows.js';
import { Dispatcher, type DispatchDeps } from '../../src/events/webhooks/dispatcher.js';
import type { PostResult } from '../../src/events/webhooks/post.js';

const event = (id: number): StoredEvent => ({
  id,
  type: 'user.created',
  user_id: id,
  name: `User ${id}`,
  email: `user${id}@example.com`,
  created_at: '2026-12-05 10:00:00',
  request_id: null,
  occurred_at: '2026-12-05 10:00:00',
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

test('Dispatcher: an endpoint waiting its turn to send reads no further ahead than it can send, however long the outbox', async (t) => {
  const reads: number[] = [];
  // An outbox that never runs out: every read gets as many events as it asks for.
  const log = {
    after: async (id: number, limit: number) => {
      reads.push(limit);
      return Array.from({ length: limit }, (_, i) => event(id + i + 1));
    },
  } as unknown as EventLog;
  const rows = { usersWithPending: async () => new Set<number>(), commit: async () => true } as unknown as EndpointRows;
  // Attempts wait for their turn until let go, as with the process's pace taken by others.
  const waiting: Array<(result: PostResult) => void> = [];
  const send = (): Promise<PostResult> => new Promise((resolve) => waiting.push(resolve));
  const deps: DispatchDeps = { log, rows, send, takes: () => true, retryForSeconds: 60, held: () => true };
  const stop = new AbortController();
  const running = new Dispatcher(deps, 0).run(stop.signal);
  t.after(async () => {
    stop.abort();
    for (const resolve of waiting.splice(0)) resolve({ kind: 'stopped' });
    await running;
  });

  await until(() => waiting.length >= 200);
  // Several polls later, nothing more has been read: the 200 read are all still to be sent.
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.deepEqual(reads, [200]);

  // Once some are sent, the next read comes.
  for (const resolve of waiting.splice(0, 50)) resolve({ kind: 'acknowledged', status: 204, durationMs: 1, body: null } as PostResult);
  await until(() => reads.length === 2);
  assert.ok(reads[1]! <= 200);
});
