import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { waitUntil } from '../helpers/poll-until.js';
import { dbEnv, runScript } from '../helpers/run-script.js';
import type { RunningService } from '../helpers/service.js';
import { Receiver } from './support/receiver.js';
import { adminKeys, EndpointClient, endpointWebhooks, startAdminService, type AdminKeys, type Endpoint } from './support/endpoint-admin.js';

const WEBHOOKS = 'src/commands/webhooks.ts';
const BASE = '/api/webhooks/endpoints';

describe('npm run webhooks: endpoints, disable, enable, rotate, retry, and resend of a pending delivery', () => {
  let keys: AdminKeys;
  let env: Receiver;
  let hook: Receiver;
  let service: RunningService;
  let admin: EndpointClient;
  let made: Endpoint;
  const tool = (...args: string[]) => runScript(WEBHOOKS, dbEnv(service.db.config), 30_000, { args });

  before(async () => {
    keys = await adminKeys();
    [env, hook] = await Promise.all([Receiver.start(), Receiver.start()]);
    service = await startAdminService('hook_tool', keys, endpointWebhooks({ urls: [env.url], secret: env.key }));
    admin = new EndpointClient(service.baseUrl, keys.admin.key);
    made = await admin.create({ url: hook.url, secret: hook.secret });
    await waitUntil('the environment endpoint listed', async () => ((await admin.call('GET', BASE)).json as Endpoint[]).length === 2);
  });
  after(async () => {
    await service?.close();
    await Promise.all([env?.close(), hook?.close()]);
    keys?.remove();
  });

  test('endpoints lists every endpoint with its id, source, URL, state and counts', async () => {
    const listed = await tool('endpoints');
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^${made.id}  api  ${hook.url.replace(/[.]/g, '\\.')}  enabled  0 pending  0 failed  `, 'm'));
    assert.match(listed.stdout, new RegExp(`^\\d+  env  ${env.url.replace(/[.]/g, '\\.')}  enabled  `, 'm'));
    assert.match(listed.stdout, /^2 webhook endpoints\.$/m);
  });

  test('disable and enable change an API endpoint as the API does; an endpoint of WEBHOOK_URLS is refused with one line, exit 1', async () => {
    const disabled = await tool('disable', String(made.id));
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.equal(((await admin.call('GET', `${BASE}/${made.id}`)).json as Endpoint).disabled, true);
    const enabled = await tool('enable', hook.url);
    assert.equal(enabled.code, 0, enabled.stderr);
    assert.equal(((await admin.call('GET', `${BASE}/${made.id}`)).json as Endpoint).disabled, false);
    const refused = await tool('disable', env.url);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /WEBHOOK_URLS/);
  });

  test('rotate prints a new secret that signs the next delivery, the old one still signing during the grace', async () => {
    const rotated = await tool('rotate', String(made.id), '--grace', '600');
    assert.equal(rotated.code, 0, rotated.stderr);
    const key = rotated.stdout.trim();
    assert.match(key, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
    assert.deepEqual((await admin.call('GET', `${BASE}/${made.id}/secret`)).json, { key });
    // A running service reads the change within a second or two: deliveries from then on carry both signatures.
    const verifies = (secret: string, one: (typeof hook.received)[number]): boolean => {
      try {
        new Webhook(secret).verify(one.body, one.signed);
        return true;
      } catch {
        return false;
      }
    };
    let n = 0;
    await waitUntil('a delivery signed with the new key', async () => {
      await admin.createUser(keys.writer.key, `rotated-by-tool-${n++}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      return hook.acknowledged().some((one) => verifies(key, one));
    }, { timeoutMs: 15_000 });
    const signed = hook.acknowledged().find((one) => verifies(key, one))!;
    assert.ok(verifies(hook.secret, signed), 'the old key signs it too, during the grace');
  });

  test('retry and resend of a pending delivery send it now, with one message and exit 0', async () => {
    hook.answer = () => 503;
    const id = await admin.createUser(keys.writer.key, 'retried-by-tool');
    await waitUntil('a retry scheduled well ahead', async () => {
      const rows = await service.db.query<Array<{ ahead: number }>>(
        "SELECT TIMESTAMPDIFF(SECOND, NOW(3), d.next_attempt_at) AS ahead FROM webhook_deliveries d JOIN webhook_subscriptions s USING (endpoint) WHERE s.id = ? AND d.state = 'pending'",
        [made.id],
      );
      return rows.length === 1 && rows[0]!.ahead >= 20;
    }, { timeoutMs: 30_000 });
    const [{ event_id: eventId }] = (await service.db.query<Array<{ event_id: number }>>(
      "SELECT d.event_id FROM webhook_deliveries d JOIN webhook_subscriptions s USING (endpoint) WHERE s.id = ? AND d.state = 'pending'",
      [made.id],
    )) as [{ event_id: number }];
    hook.answer = () => 204;
    const resent = await tool('resend', String(eventId));
    assert.equal(resent.code, 0, resent.stderr);
    assert.equal(resent.stderr, '');
    assert.match(resent.stdout, /^1 pending webhook delivery is due now\.$/m);
    await waitUntil('delivered after the resend', () => hook.acknowledged().some((one) => one.event.data.id === id), { timeoutMs: 15_000 });
    const retried = await tool('retry');
    assert.equal(retried.code, 0, retried.stderr);
    assert.match(retried.stdout, /: 0 pending deliveries due now\.$/m);
  });
});
