import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { waitUntil } from '../helpers/poll-until.js';
import { startService, type RunningService } from '../helpers/service.js';
import { codeBlocksOf, DocsReceiver, sectionOf } from './support/docs-receiver.js';
import { createUser, renameUser, storedEvents } from './support/webhooks.js';

/** Headers signed as the service signs, with `key` as the HMAC's key. */
function signedWith(key: Buffer | string, id: string, body: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}

describe('verifying a delivery: the receivers docs/events.md prints, run as printed, against the running service', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const blocks = codeBlocksOf('docs/events.md', 'Verifying a delivery');
  const receivers: Array<{ name: string; receiver: DocsReceiver; url: string }> = [];
  let service: RunningService;

  before(async () => {
    const library = blocks.find((code) => code.includes("from 'standardwebhooks'"));
    const crypto = blocks.find((code) => code.includes("from 'node:crypto'") && !code.includes('standardwebhooks'));
    assert.ok(library && crypto, 'the section shows a receiver with standardwebhooks and one with node:crypto alone');
    for (const [name, code] of [['standardwebhooks', library], ['node:crypto', crypto]] as const) {
      receivers.push({ name, ...(await DocsReceiver.start(code, secret)) });
    }
    service = await startService('hooks_verify', {
      events: {
        retentionSeconds: 86_400,
        webhooks: { urls: receivers.map((one) => one.url), secret: key, retryForSeconds: 86_400, timeoutSeconds: 10, concurrency: 8, allowNetworks: [], httpsOnly: false, disableAfterSeconds: undefined },
      },
    });
    await waitUntil('both endpoints registered', async () => (await service.db.query<unknown[]>('SELECT 1 FROM webhook_endpoints').catch(() => [])).length === 2, {
      timeoutMs: 30_000,
    });
  });
  after(async () => {
    await service?.close();
    for (const { receiver } of receivers) receiver.stop();
  });

  test('the section holds exactly the two receivers; it and the README say the key is the base64 after whsec_, decoded', () => {
    assert.equal(blocks.length, 2);
    const key = /part of\s+`WEBHOOK_SECRET` after `whsec_`,\s+base64-decoded/;
    assert.match(sectionOf('docs/events.md', 'Verifying a delivery'), key);
    assert.match(sectionOf('README.md', 'Change events'), key);
  });

  test('each receiver verifies every real delivery (a create and a rename) and acknowledges it: nothing is left to retry', async () => {
    const id = await createUser(service.baseUrl, 'Verified');
    await renameUser(service.baseUrl, id, 'Verified again');
    const events = (await storedEvents(service.db)).filter((event) => event.user_id === id);
    const expected = events.map((event) => `verified evt_${event.id} ${event.type} ${id}`);
    assert.deepEqual(expected.map((line) => line.split(' ')[2]), ['user.created', 'user.updated']);
    for (const { name, receiver } of receivers) {
      await waitUntil(`${name}: both deliveries verified`, () => expected.every((line) => receiver.verified().includes(line)), { timeoutMs: 30_000 });
    }
    await waitUntil('no delivery pending', async () => (await service.db.query<unknown[]>('SELECT 1 FROM webhook_deliveries')).length === 0, { timeoutMs: 30_000 });
  });

  test('each refuses (400) a delivery signed with the whole whsec_… string as the key, and one whose body was changed', async () => {
    const body = JSON.stringify({ id: 999_999, type: 'user.deleted', timestamp: new Date().toISOString(), request_id: null, data: { id: 999_999 } });
    for (const { name, receiver, url } of receivers) {
      const wholeString = await fetch(url, { method: 'POST', body, headers: signedWith(secret, 'evt_999999', body) });
      assert.equal(wholeString.status, 400, `${name}: the whole string is not the key`);
      const rightKey = signedWith(key, 'evt_999998', body);
      const changed = await fetch(url, { method: 'POST', body: body.replace('999999', '999990'), headers: rightKey });
      assert.equal(changed.status, 400, `${name}: a changed body`);
      const right = await fetch(url, { method: 'POST', body, headers: rightKey });
      assert.equal(right.status, 204, `${name}: the decoded key, the body as signed`);
      assert.deepEqual(receiver.verified().filter((line) => line.includes('evt_99999')), ['verified evt_999998 user.deleted 999999']);
    }
  });
});
