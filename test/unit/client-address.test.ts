import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, test } from 'node:test';
import { clientAddress } from '../../src/http/client-address.js';

function requestFrom(remoteAddress: string, forwardedFor?: string | string[]): IncomingMessage {
  const headers = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
  return { headers, socket: { remoteAddress } } as unknown as IncomingMessage;
}

describe('clientAddress', () => {
  const rows: Array<[string, boolean, string | string[] | undefined, string]> = [
    ['without TRUST_PROXY the header is ignored', false, '203.0.113.9', '10.0.0.1'],
    ['with TRUST_PROXY the last hop counts', true, '203.0.113.9, 198.51.100.7', '198.51.100.7'],
    ['with TRUST_PROXY and no header, the socket address', true, undefined, '10.0.0.1'],
    ['with TRUST_PROXY and an empty last hop, the socket address', true, '203.0.113.9,', '10.0.0.1'],
    ['repeated headers: the last hop of the last one', true, ['203.0.113.9', '198.51.100.8'], '198.51.100.8'],
    ['an IPv6 last hop', true, '2001:db8::1', '2001:db8::1'],
  ];
  for (const [rule, trustProxy, forwardedFor, expected] of rows) {
    test(`${rule} -> ${expected}`, () => {
      assert.equal(clientAddress(requestFrom('10.0.0.1', forwardedFor), trustProxy), expected);
    });
  }

  test('a last hop longer than any address is cut to 64 characters', () => {
    assert.equal(clientAddress(requestFrom('10.0.0.1', 'x'.repeat(10_000)), true), 'x'.repeat(64));
  });
});
