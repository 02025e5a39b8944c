import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from '../helpers/http.js';
import { waitUntil } from '../helpers/poll-until.js';
import { startService, type RunningService } from '../helpers/service.js';
import { Receiver } from './support/receiver.js';
import { endpointRegistered, webhookEvents } from './support/webhooks.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

function parts(header: string | null | undefined): { traceId: string; spanId: string; flags: string } {
  const match = TRACEPARENT.exec(header ?? '');
  assert.ok(match, `a traceparent, got ${header}`);
  return { traceId: match[1]!, spanId: match[2]!, flags: match[3]! };
}

describe('webhook attempts join the trace of the request that made the change', () => {
  let receiver: Receiver;
  let service: RunningService;
  before(async () => {
    receiver = await Receiver.start();
    service = await startService('hooks_trace', { events: webhookEvents(receiver) });
    await endpointRegistered(service.db);
  });
  after(async () => {
    await service.close();
    await receiver.close();
  });

  test('create, update and delete with the caller\'s traceparent -> each attempt\'s traceparent names that trace, its span a new one', async () => {
    const headers = { traceparent: `00-${CALLER_TRACE}-00f067aa0ba902b7-01` };
    const created = await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'Traced', email: 'traced@hooks.example' }, headers });
    assert.equal(created.status, 201);
    const id = Number(created.headers.get('location')!.split('/').pop());
    const answers = [created];
    answers.push(await request(service.baseUrl, 'PUT', `/api/users/${id}`, { json: { name: 'Put', email: 'traced@hooks.example' }, headers }));
    answers.push(await request(service.baseUrl, 'PATCH', `/api/users/${id}`, { json: { name: 'Patched' }, headers }));
    answers.push(await request(service.baseUrl, 'DELETE', `/api/users/${id}`, { headers }));
    const mine = () => receiver.acknowledged().filter((one) => one.event.data.id === id);
    await waitUntil('four deliveries', () => mine().length >= 4, { timeoutMs: 30_000 });
    for (const [i, delivery] of mine().entries()) {
      const attempt = parts(delivery.traceparent);
      const answered = parts(answers[i]!.headers.get('traceparent'));
      assert.equal(attempt.traceId, CALLER_TRACE, `${delivery.event.type}: the caller's trace`);
      assert.notEqual(attempt.spanId, answered.spanId, 'the attempt is a span of its own, a child of the request\'s');
      assert.equal(attempt.flags, '01', 'the sampled flag goes on');
    }
  });

  test('a create without traceparent -> the attempt continues the trace its response named', async () => {
    const created = await request(service.baseUrl, 'POST', '/api/users', { json: { name: 'Untraced', email: 'untraced@hooks.example' } });
    assert.equal(created.status, 201);
    const id = Number(created.headers.get('location')!.split('/').pop());
    await waitUntil('the delivery', () => receiver.acknowledged().some((one) => one.event.data.id === id), { timeoutMs: 30_000 });
    const delivery = receiver.acknowledged().find((one) => one.event.data.id === id)!;
    assert.equal(parts(delivery.traceparent).traceId, parts(created.headers.get('traceparent')).traceId);
  });

  test('the event JSON is unchanged: no trace field is added to the payload', async () => {
    for (const delivery of receiver.acknowledged()) assert.deepEqual(Object.keys(JSON.parse(delivery.body) as object), ['id', 'type', 'timestamp', 'request_id', 'data']);
  });
});
