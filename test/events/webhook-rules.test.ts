import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { StoredEvent } from '../../src/events/event-log.js';
import { afterFailure, RETRY_PAUSES_SECONDS } from '../../src/events/webhooks/retry-schedule.js';
import { signedHeaders, webhookId } from '../../src/events/webhooks/signature.js';
import { OpenEvents } from '../../src/events/webhooks/open-events.js';

const DAY = 86_400;
const noJitter = () => 0;
const fullJitter = () => 0.999_999;

describe('the retry schedule', () => {
  test('a failed attempt is retried at once, then after 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, then every 8 h', () => {
    assert.deepEqual(RETRY_PAUSES_SECONDS, [0, 5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800]);
    const pauses = Array.from({ length: 13 }, (_, i) => afterFailure(i + 1, 0, 30 * DAY, noJitter));
    assert.deepEqual(pauses.map((next) => (next.state === 'pending' ? next.delaySeconds : 'failed')), [0, 5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 28_800, 28_800, 28_800]);
  });

  test('the retry at once is not delayed at random', () => {
    assert.deepEqual(afterFailure(1, 0, 30 * DAY, fullJitter), { state: 'pending', delaySeconds: 0 });
  });

  test('each later pause is lengthened by up to 10% at random, never shortened', () => {
    for (const attempts of [2, 4, 9, 20]) {
      const base = afterFailure(attempts, 0, 30 * DAY, noJitter);
      const most = afterFailure(attempts, 0, 30 * DAY, fullJitter);
      assert.ok(base.state === 'pending' && most.state === 'pending');
      assert.ok(most.delaySeconds > base.delaySeconds && most.delaySeconds < base.delaySeconds * 1.1 + 1e-9, `attempt ${attempts}`);
    }
  });

  test('no attempt is scheduled past the retry period: the last is made when it ends', () => {
    assert.deepEqual(afterFailure(2, 0, 2, noJitter), { state: 'pending', delaySeconds: 2 });
    assert.deepEqual(afterFailure(9, 3 * DAY - 60, 3 * DAY, noJitter), { state: 'pending', delaySeconds: 60 });
  });

  test('a failure once the retry period is over marks the delivery failed', () => {
    assert.deepEqual(afterFailure(2, 2, 2), { state: 'failed' });
    assert.deepEqual(afterFailure(30, 3 * DAY + 1, 3 * DAY), { state: 'failed' });
  });
});

describe('signing (Standard Webhooks)', () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const key = Buffer.alloc(32, 7);

  test('the headers verify with the standardwebhooks library, for this body only', () => {
    const body = '{"id":42,"type":"user.created"}';
    const headers = signedHeaders(key, webhookId(42), body);
    assert.equal(headers['webhook-id'], 'evt_42');
    assert.match(headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]+=*$/);
    assert.doesNotThrow(() => new Webhook(secret).verify(body, headers));
    assert.throws(() => new Webhook(secret).verify(`${body} `, headers), /signature/i);
  });

  test('webhook-timestamp is the unix seconds of the attempt, and the signature covers it', () => {
    const body = '{}';
    const headers = signedHeaders(key, 'evt_1', body, Date.UTC(2026, 0, 2, 3, 4, 5, 678));
    assert.equal(headers['webhook-timestamp'], String(Date.UTC(2026, 0, 2, 3, 4, 5) / 1000));
    assert.equal(new Webhook(secret).sign('evt_1', new Date(Date.UTC(2026, 0, 2, 3, 4, 5)), body), headers['webhook-signature']);
  });
});

describe('the events open for an endpoint (OpenEvents)', () => {
  const event = (id: number, user: number): StoredEvent => ({
    id,
    type: 'user.updated',
    user_id: user,
    name: 'n',
    email: 'e',
    created_at: null,
    request_id: null,
    occurred_at: '2026-01-01 00:00:00.000000',
  });

  test('the mark moves only over the settled events from the first, never past one still unsettled', () => {
    const open = new OpenEvents(10);
    const [e11, e12, e13, e14] = open.add([event(11, 1), event(12, 2), event(13, 1), event(14, 3)]);
    e12!.outcome = { kind: 'acknowledged' };
    assert.equal(open.nextCheckpoint(), undefined, 'event 11 is in flight');
    e11!.outcome = { kind: 'queued', attempts: 1, error: 'HTTP 500', delaySeconds: 5 };
    e14!.outcome = { kind: 'acknowledged' };
    const first = open.nextCheckpoint()!;
    assert.deepEqual(first, { from: 10, through: 12, count: 2, queued: [{ eventId: 11, userId: 1, attempts: 1, error: 'HTTP 500', delaySeconds: 5 }] });
    assert.deepEqual(open.committed(first).map((one) => one.event.id), [11, 12]);
    assert.equal(open.committedThrough, 12);
    assert.equal(open.nextCheckpoint(), undefined);
    e13!.outcome = { kind: 'queued', attempts: 0, error: null, delaySeconds: 0 };
    const second = open.nextCheckpoint()!;
    assert.deepEqual(second, { from: 12, through: 14, count: 2, queued: [{ eventId: 13, userId: 1, attempts: 0, error: null, delaySeconds: 0 }] });
    open.committed(second);
    assert.equal(open.committedThrough, 14);
    assert.equal(open.size, 0);
  });

  test('events read later join the open ones; reading goes on after the last read, not after the mark', () => {
    const open = new OpenEvents(10);
    open.add([event(11, 1)]);
    assert.equal(open.readThrough, 11);
    assert.equal(open.committedThrough, 10);
    const [e12] = open.add([event(12, 2)]);
    e12!.outcome = { kind: 'acknowledged' };
    assert.equal(open.nextCheckpoint(), undefined);
    assert.equal(open.readThrough, 12);
    assert.equal(open.size, 2);
  });
});
