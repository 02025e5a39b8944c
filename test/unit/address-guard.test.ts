import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AddressGuard } from '../../src/events/webhooks/address-guard.js';
import { endpointUrlProblem } from '../../src/events/webhooks/endpoint-url.js';

const strict = new AddressGuard([]);
const local = new AddressGuard(['127.0.0.0/8', '::1/128']);

describe('which addresses an endpoint made through the API may reach', () => {
  test('loopback, private, link-local, CGNAT, multicast, reserved and unspecified IPv4 addresses are refused', () => {
    for (const address of ['127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.127.255.254', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255', '0.0.0.0', '0.1.2.3', '192.0.2.7', '198.18.0.1']) {
      assert.equal(strict.allows(address), false, address);
    }
  });

  test('IPv6 loopback, unique-local, link-local, multicast and unspecified addresses are refused, and so are IPv4-mapped, -compatible and NAT64 forms of refused IPv4 ones', () => {
    for (const address of ['::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '::127.0.0.1', '::7f00:1', '64:ff9b::7f00:1', '64:ff9b::10.0.0.1', '[::1]']) {
      assert.equal(strict.allows(address), false, address);
    }
  });

  test('public addresses, and mapped forms of public IPv4 ones, are allowed', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8']) {
      assert.equal(strict.allows(address), true, address);
    }
  });

  test('WEBHOOK_ALLOW_NETWORKS lets its networks through, mapped forms included, and nothing else', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) assert.equal(local.allows(address), true, address);
    for (const address of ['10.0.0.1', '169.254.169.254', 'fd00::1']) assert.equal(local.allows(address), false, address);
  });

  test('the lookup refuses a name that resolves to a refused address, in both of its callback forms', async () => {
    const single = await new Promise<NodeJS.ErrnoException | null>((resolve) => strict.lookup('localhost', {}, (error) => resolve(error)));
    assert.equal(single?.code, 'EADDRNOTALLOWED');
    const all = await new Promise<NodeJS.ErrnoException | null>((resolve) => strict.lookup('localhost', { all: true }, (error) => resolve(error)));
    assert.equal(all?.code, 'EADDRNOTALLOWED');
    const allowed = await new Promise<unknown>((resolve) => local.lookup('127.0.0.1', { all: true }, (error, addresses) => resolve(error ?? addresses)));
    assert.deepEqual(allowed, [{ address: '127.0.0.1', family: 4 }]);
  });
});

describe('what URL an endpoint made through the API may have', () => {
  const rules = { httpsOnly: false, guard: strict };

  test('a host that is a refused address is refused in every spelling the URL parser reads', () => {
    for (const url of ['http://127.1/', 'http://2130706433/', 'http://0x7f000001/', 'http://0177.0.0.1/', 'http://[::ffff:127.0.0.1]/', 'http://[::1]/', 'http://0.0.0.0/', 'http://10.0.0.1/', 'http://169.254.169.254/', 'http://100.64.0.1/', 'http://[fd00::1]/', 'http://[fe80::1]/']) {
      assert.match(endpointUrlProblem(url, rules) ?? '', /private, loopback or reserved/, url);
    }
  });

  test('user or password, schemes other than http and https, and URLs over 2 048 characters are refused; https only when asked', () => {
    assert.match(endpointUrlProblem('https://user:pw@hooks.example.com/', rules) ?? '', /user or password/);
    for (const url of ['ftp://hooks.example.com/', 'file:///etc/passwd', 'hooks.example.com/x', 7]) assert.match(endpointUrlProblem(url, rules) ?? '', /^url must be/, String(url));
    assert.match(endpointUrlProblem(`https://hooks.example.com/${'a'.repeat(2048)}`, rules) ?? '', /2048/);
    assert.match(endpointUrlProblem('http://hooks.example.com/', { ...rules, httpsOnly: true }) ?? '', /https/);
  });

  test('a name is left to be checked at connect time, and an allowed literal address is accepted', () => {
    assert.equal(endpointUrlProblem('http://localhost:1/', rules), undefined);
    assert.equal(endpointUrlProblem('https://hooks.example.com/x?token=1', rules), undefined);
    assert.equal(endpointUrlProblem('http://127.0.0.1:8080/hooks', { httpsOnly: false, guard: local }), undefined);
  });
});
