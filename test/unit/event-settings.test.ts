import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/environment.js';

const SECRET_BYTES = Buffer.alloc(32, 7);
const SECRET = `whsec_${SECRET_BYTES.toString('base64')}`;

describe('loadConfig: EVENTS and WEBHOOK_*', () => {
  test('nothing set -> events off: no event settings at all', () => {
    assert.equal(loadConfig({}).events, undefined);
    assert.equal(loadConfig({ EVENTS: 'off' }).events, undefined);
  });

  test('EVENTS=on -> the outbox and the stream, kept 7 days; no WEBHOOK_URLS, API endpoints guarded, disabled after 5 days of failures', () => {
    assert.deepEqual(loadConfig({ EVENTS: 'on' }).events, {
      retentionSeconds: 7 * 86_400,
      webhooks: { urls: [], secret: undefined, retryForSeconds: 3 * 86_400, timeoutSeconds: 10, concurrency: 8, allowNetworks: [], httpsOnly: false, disableAfterSeconds: 5 * 86_400 },
    });
  });

  test('WEBHOOK_ALLOW_NETWORKS, WEBHOOK_HTTPS_ONLY and WEBHOOK_DISABLE_AFTER are read; a bad CIDR or duration is refused naming the setting', () => {
    const webhooks = loadConfig({ EVENTS: 'on', WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8, ::1/128', WEBHOOK_HTTPS_ONLY: 'on', WEBHOOK_DISABLE_AFTER: 'off' }).events?.webhooks;
    assert.deepEqual([webhooks?.allowNetworks, webhooks?.httpsOnly, webhooks?.disableAfterSeconds], [['127.0.0.0/8', '::1/128'], true, undefined]);
    assert.equal(loadConfig({ EVENTS: 'on', WEBHOOK_DISABLE_AFTER: '2h' }).events?.webhooks?.disableAfterSeconds, 7200);
    assert.throws(() => loadConfig({ EVENTS: 'on', WEBHOOK_ALLOW_NETWORKS: '10.0.0.0/33' }), /^Error: WEBHOOK_ALLOW_NETWORKS must be/);
    assert.throws(() => loadConfig({ EVENTS: 'on', WEBHOOK_ALLOW_NETWORKS: 'localhost' }), /WEBHOOK_ALLOW_NETWORKS/);
    assert.throws(() => loadConfig({ EVENTS: 'on', WEBHOOK_DISABLE_AFTER: 'never' }), /WEBHOOK_DISABLE_AFTER/);
    assert.throws(() => loadConfig({ EVENTS: 'on', WEBHOOK_HTTPS_ONLY: 'yes' }), /WEBHOOK_HTTPS_ONLY/);
  });

  test('WEBHOOK_URLS implies EVENTS=on, with the defaults: retried 3 days, 10 s to answer, 8 at once', () => {
    const events = loadConfig({ WEBHOOK_URLS: ' https://a.example/hook , http://127.0.0.1:9000/x', WEBHOOK_SECRET: SECRET }).events;
    assert.deepEqual(events?.webhooks, {
      urls: ['https://a.example/hook', 'http://127.0.0.1:9000/x'],
      secret: SECRET_BYTES,
      retryForSeconds: 3 * 86_400,
      timeoutSeconds: 10,
      concurrency: 8,
      allowNetworks: [],
      httpsOnly: false,
      disableAfterSeconds: 5 * 86_400,
    });
  });

  const durations: Array<[string, number]> = [['30s', 30], ['15m', 900], ['12h', 43_200], ['7d', 604_800]];
  for (const [value, seconds] of durations) {
    test(`EVENTS_RETENTION=${value} and WEBHOOK_RETRY_FOR=${value} -> ${seconds} s`, () => {
      const events = loadConfig({ EVENTS: 'on', EVENTS_RETENTION: value, WEBHOOK_URLS: 'https://a.example/', WEBHOOK_SECRET: SECRET, WEBHOOK_RETRY_FOR: value }).events;
      assert.equal(events?.retentionSeconds, seconds);
      assert.equal(events?.webhooks?.retryForSeconds, seconds);
    });
  }

  const refused: Array<[what: string, env: Record<string, string>, message: RegExp]> = [
    ['EVENTS=yes', { EVENTS: 'yes' }, /^EVENTS must be one of on, off, got "yes"$/],
    ['WEBHOOK_URLS with EVENTS=off', { EVENTS: 'off', WEBHOOK_URLS: 'https://a.example/' }, /^WEBHOOK_URLS needs EVENTS=on/],
    ['WEBHOOK_URLS without a secret', { WEBHOOK_URLS: 'https://a.example/' }, /^WEBHOOK_URLS needs WEBHOOK_SECRET/],
    ['a secret without whsec_', { WEBHOOK_URLS: 'https://a.example/', WEBHOOK_SECRET: SECRET_BYTES.toString('base64') }, /^WEBHOOK_SECRET must be whsec_/],
    ['a secret of 8 bytes', { WEBHOOK_URLS: 'https://a.example/', WEBHOOK_SECRET: `whsec_${Buffer.alloc(8).toString('base64')}` }, /^WEBHOOK_SECRET must be whsec_/],
    ['a URL that is not one', { WEBHOOK_URLS: 'not a url', WEBHOOK_SECRET: SECRET }, /^WEBHOOK_URLS must be comma-separated http or https URLs, got "not a url"$/],
    ['an ftp URL', { WEBHOOK_URLS: 'ftp://a.example/', WEBHOOK_SECRET: SECRET }, /^WEBHOOK_URLS must be http or https URLs/],
    ['a URL with credentials', { WEBHOOK_URLS: 'https://u:p@a.example/', WEBHOOK_SECRET: SECRET }, /^WEBHOOK_URLS must not carry credentials/],
    ['the same URL twice', { WEBHOOK_URLS: 'https://a.example/,https://a.example/', WEBHOOK_SECRET: SECRET }, /^WEBHOOK_URLS names the same URL twice$/],
    ['EVENTS_RETENTION=7', { EVENTS: 'on', EVENTS_RETENTION: '7' }, /^EVENTS_RETENTION must be a whole number of s, m, h or d/],
    ['WEBHOOK_TIMEOUT_S=0', { WEBHOOK_URLS: 'https://a.example/', WEBHOOK_SECRET: SECRET, WEBHOOK_TIMEOUT_S: '0' }, /^WEBHOOK_TIMEOUT_S must be a whole number from 1 to 300/],
  ];
  for (const [what, env, message] of refused) {
    test(`${what} -> a ConfigError naming the setting`, () => {
      assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && message.test((error as Error).message));
    });
  }

  test('the secret never appears in a ConfigError', () => {
    try {
      loadConfig({ WEBHOOK_URLS: 'https://a.example/', WEBHOOK_SECRET: 'whsec_c2hvcnQ=' });
      assert.fail('accepted');
    } catch (error) {
      assert.doesNotMatch((error as Error).message, /c2hvcnQ/);
    }
  });
});
