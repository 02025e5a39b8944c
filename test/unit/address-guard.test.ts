import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AddressGuard } from '../../src/events/webhooks/address-guard.js';
import { endpointUrlProblem } from '../../src/events/webhooks/endpoint-url.js';

const strict = new AddressGuard([]);
const loopbackAllowed = new AddressGuard(['127.0.0.0/8', '::1/128']);
const PRIVATE = 'url must not point to a private, loopback or reserved address';

describe('AddressGuard.allows: public addresses only, unless allowed', () => {
  const refused: Array<[string, string]> = [
    ['IPv4 loopback', '127.0.0.1'],
    ['IPv4 loopback, anywhere in 127/8', '127.255.0.9'],
    ['private 10/8', '10.1.2.3'],
    ['private 172.16/12', '172.16.0.1'],
    ['private 172.16/12, its last block', '172.31.255.254'],
    ['private 192.168/16', '192.168.1.1'],
    ['link-local 169.254/16 (cloud metadata)', '169.254.169.254'],
    ['carrier-grade NAT 100.64/10', '100.64.0.1'],
    ['carrier-grade NAT 100.64/10, its last block', '100.127.255.254'],
    ['multicast 224/4', '224.0.0.1'],
    ['reserved 240/4', '240.0.0.1'],
    ['broadcast', '255.255.255.255'],
    ['unspecified 0.0.0.0', '0.0.0.0'],
    ['"this network" 0/8', '0.1.2.3'],
    ['IETF protocol assignments 192.0.0/24', '192.0.0.8'],
    ['documentation 192.0.2/24', '192.0.2.1'],
    ['benchmarking 198.18/15', '198.19.0.1'],
    ['documentation 198.51.100/24', '198.51.100.7'],
    ['documentation 203.0.113/24', '203.0.113.9'],
    ['IPv6 unspecified', '::'],
    ['IPv6 loopback', '::1'],
    ['unique local fc00::/7', 'fd00::1'],
    ['unique local fc00::/7, fc half', 'fc00::1'],
    ['link-local fe80::/10', 'fe80::1'],
    ['link-local with a zone', 'fe80::1%eth0'],
    ['multicast ff00::/8', 'ff02::1'],
    ['documentation 2001:db8::/32', '2001:db8::1'],
    ['IPv4-mapped loopback, dotted', '::ffff:127.0.0.1'],
    ['IPv4-mapped loopback, in hex', '::ffff:7f00:1'],
    ['IPv4-mapped metadata address', '::ffff:169.254.169.254'],
    ['IPv4-compatible loopback', '::127.0.0.1'],
    ['IPv4-compatible private, in hex', '::a00:1'],
    ['NAT64 to loopback', '64:ff9b::127.0.0.1'],
    ['NAT64 to private, in hex', '64:ff9b::c0a8:101'],
    ['6to4 around loopback', '2002:7f00:1::1'],
    ['not an address at all', 'localhost'],
    ['empty', ''],
  ];
  for (const [range, address] of refused) {
    test(`${range} (${address}) is refused`, () => {
      assert.equal(strict.allows(address), false);
    });
  }

  const allowed: Array<[string, string]> = [
    ['a public IPv4 address', '8.8.8.8'],
    ['another public IPv4 address', '1.1.1.1'],
    ['just outside 172.16/12', '172.32.0.1'],
    ['just outside 100.64/10', '100.128.0.1'],
    ['a public IPv6 address', '2606:4700::1111'],
    ['IPv4-mapped public address', '::ffff:8.8.8.8'],
    ['NAT64 to a public address', '64:ff9b::8.8.8.8'],
  ];
  for (const [kind, address] of allowed) {
    test(`${kind} (${address}) is allowed`, () => {
      assert.equal(strict.allows(address), true);
    });
  }

  const throughAllowList: Array<[string, string]> = [
    ['an allowed IPv4 network', '127.0.0.1'],
    ['an allowed IPv6 network', '::1'],
    ['the IPv4-mapped form of an allowed IPv4 address', '::ffff:127.0.0.1'],
    ['the IPv4-compatible form of an allowed IPv4 address', '::127.0.0.2'],
  ];
  for (const [rule, address] of throughAllowList) {
    test(`${rule} (${address}) passes with 127.0.0.0/8,::1/128 allowed`, () => {
      assert.equal(strict.allows(address), false);
      assert.equal(loopbackAllowed.allows(address), true);
    });
  }

  test('an allow-list opens only its own networks: 10.0.0.1 and fd00::1 stay refused beside 127.0.0.0/8,::1/128', () => {
    assert.equal(loopbackAllowed.allows('10.0.0.1'), false);
    assert.equal(loopbackAllowed.allows('fd00::1'), false);
  });

  test('an allowed IPv4 network does not open NAT64 addresses carrying it: they lead through a gateway', () => {
    assert.equal(loopbackAllowed.allows('64:ff9b::127.0.0.1'), false);
  });
});

describe('AddressGuard.lookup: a name is judged by every address it resolves to', () => {
  const lookup = (guard: AddressGuard, hostname: string, all: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family: unknown }>((resolve) => {
      guard.lookup(hostname, { all }, (error, address, family) => resolve({ error, address, family }));
    });

  test('localhost is refused with EADDRNOTALLOWED, in both forms of answer', async () => {
    for (const all of [true, false]) {
      const { error } = await lookup(strict, 'localhost', all);
      assert.equal(error?.code, 'EADDRNOTALLOWED');
      assert.match(error.message, /^localhost resolves to .*private, loopback or reserved/);
    }
  });

  test('localhost resolves as dns.lookup would when loopback is allowed: all: true gives a list, otherwise one address and its family', async () => {
    const many = await lookup(loopbackAllowed, 'localhost', true);
    assert.equal(many.error, null);
    assert.ok(Array.isArray(many.address) && many.address.length > 0);
    const one = await lookup(loopbackAllowed, 'localhost', false);
    assert.equal(one.error, null);
    assert.equal(typeof one.address, 'string');
    assert.ok(one.family === 4 || one.family === 6);
  });

  test('a name that does not resolve fails as dns.lookup fails', async () => {
    const { error } = await lookup(strict, 'no-such-host.invalid', true);
    assert.ok(error?.code === 'ENOTFOUND' || error?.code === 'EAI_AGAIN');
  });
});

describe('endpointUrlProblem: what a webhook endpoint URL may be', () => {
  const rules = { httpsOnly: false, guard: strict };
  const literals = [
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::1]/',
    'http://0.0.0.0/',
    'http://10.0.0.1/',
    'http://169.254.169.254/',
    'http://100.64.0.1/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'https://0177.0.0.1/',
  ];
  for (const url of literals) {
    test(`${url}: a non-public address however it is spelled -> refused`, () => {
      assert.equal(endpointUrlProblem(url, rules), PRIVATE);
    });
  }

  const problems: Array<[string, unknown, string]> = [
    ['not a string', 42, 'url must be a string'],
    ['a user and password', 'https://user:secret@hooks.example/', 'url must not carry a user or password: deliveries are signed'],
    ['a user alone', 'https://user@hooks.example/', 'url must not carry a user or password: deliveries are signed'],
    ['ftp', 'ftp://hooks.example/', 'url must be an absolute http or https URL'],
    ['javascript:', 'javascript:alert(1)', 'url must be an absolute http or https URL'],
    ['relative', '/hooks', 'url must be an absolute http or https URL'],
    ['longer than 2048 characters', `https://hooks.example/${'a'.repeat(2048)}`, 'url must be at most 2048 characters'],
  ];
  for (const [what, url, expected] of problems) {
    test(`${what} -> "${expected}"`, () => {
      assert.equal(endpointUrlProblem(url, rules), expected);
    });
  }

  test('2048 characters are accepted', () => {
    const url = `https://hooks.example/${'a'.repeat(2048 - 'https://hooks.example/'.length)}`;
    assert.equal(url.length, 2048);
    assert.equal(endpointUrlProblem(url, rules), undefined);
  });

  test('with httpsOnly an http URL is refused, an https one accepted', () => {
    assert.equal(endpointUrlProblem('http://hooks.example/', { httpsOnly: true, guard: strict }), 'url must be an absolute https URL');
    assert.equal(endpointUrlProblem('https://hooks.example/', { httpsOnly: true, guard: strict }), undefined);
  });

  test('a host name is accepted whatever it resolves to: http://localhost:1/ is judged when an attempt connects', () => {
    assert.equal(endpointUrlProblem('http://localhost:1/', rules), undefined);
  });

  test('public addresses are accepted: http://8.8.8.8/ and https://[2606:4700::1111]/', () => {
    assert.equal(endpointUrlProblem('http://8.8.8.8/', rules), undefined);
    assert.equal(endpointUrlProblem('https://[2606:4700::1111]/', rules), undefined);
  });

  test('an address inside an allowed network is accepted: http://127.0.0.1:8080/ and http://[::1]/ with 127.0.0.0/8,::1/128', () => {
    const allowing = { httpsOnly: false, guard: loopbackAllowed };
    assert.equal(endpointUrlProblem('http://127.0.0.1:8080/', allowing), undefined);
    assert.equal(endpointUrlProblem('http://[::1]/', allowing), undefined);
    assert.equal(endpointUrlProblem('http://[::ffff:127.0.0.1]/', allowing), undefined);
  });
});
