import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { embeddedIpv4 } from './embedded-ipv4.js';

/** Addresses that are not on the public internet: this host, its networks, and ranges never routed there. */
const NON_PUBLIC = [
  '0.0.0.0/8', // "this network", 0.0.0.0 reaching this host
  '10.0.0.0/8',
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8',
  '169.254.0.0/16', // link-local, where cloud metadata services answer
  '172.16.0.0/12',
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation
  '192.168.0.0/16',
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation
  '203.0.113.0/24', // documentation
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved
  '255.255.255.255/32', // broadcast
  '::/128',
  '::1/128',
  '64:ff9b:1::/48', // NAT64 for local use
  '100::/64', // discard only
  '2001:db8::/32', // documentation
  'fc00::/7', // unique local
  'fe80::/10', // link-local
  'fec0::/10', // site-local (deprecated, still routed inside some networks)
  'ff00::/8', // multicast
];

const nonPublic = blockListOf(NON_PUBLIC);

/** A host name resolved to an address that the guard refuses (the `code` of the error a connection fails with). */
export class AddressNotAllowedError extends Error {
  readonly code = 'EADDRNOTALLOWED';

  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(`${hostname} resolves to ${address}: a private, loopback or reserved address, outside the allowed networks`);
    this.name = 'AddressNotAllowedError';
  }
}

/**
 * Which addresses webhook endpoints made through the API may reach: public ones, and those inside
 * `allowNetworks` (WEBHOOK_ALLOW_NETWORKS). An IPv6 address carrying an IPv4 one (::ffff:a.b.c.d,
 * ::a.b.c.d, NAT64, 6to4) is judged by its IPv4 address, which is where it leads.
 */
export class AddressGuard {
  private readonly allowed: BlockList;

  /** `allowNetworks`: CIDRs such as 127.0.0.0/8 or ::1/128, already checked by the configuration. */
  constructor(allowNetworks: readonly string[]) {
    this.allowed = blockListOf(allowNetworks);
  }

  /** Whether a connection to `address` (an IP address; anything else is refused) may be made. */
  allows(address: string): boolean {
    const bare = address.split('%')[0]!;
    const family = isIP(bare);
    if (family === 0) return false;
    if (family === 4) return this.allowed.check(bare, 'ipv4') || !nonPublic.check(bare, 'ipv4');
    if (this.allowed.check(bare, 'ipv6')) return true;
    const embedded = embeddedIpv4(bare);
    if (embedded === undefined) return !nonPublic.check(bare, 'ipv6');
    if (embedded.form !== 'translated' && this.allowed.check(embedded.address, 'ipv4')) return true;
    return !nonPublic.check(embedded.address, 'ipv4');
  }

  /**
   * dns.lookup that fails with an AddressNotAllowedError when any address the name resolves to is
   * refused, so a name whose answers mix public and private addresses reaches neither: the
   * `lookup` option of http.request, https.request and net.connect. Either form of answer is given
   * as asked (`all: true`, as Node's autoSelectFamily asks, or the first address).
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const refused = addresses.find((each) => !this.allows(each.address));
      if (refused !== undefined) return callback(new AddressNotAllowedError(hostname, refused.address), '');
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (first === undefined) return callback(Object.assign(new Error(`${hostname} resolves to no address`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };
}

function blockListOf(networks: readonly string[]): BlockList {
  const list = new BlockList();
  for (const network of networks) {
    const [address = '', prefix] = network.split('/');
    list.addSubnet(address, Number(prefix), isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}
