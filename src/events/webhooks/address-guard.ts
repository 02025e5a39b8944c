import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, isIPv4 } from 'node:net';

/** Where an address may not be reached: not public. */
const REFUSED_V4 = [
  ['0.0.0.0', 8], // "this" network, unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and broadcast
] as const;

const REFUSED_V6 = [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
  ['100::', 64], // discard
] as const;

/** The error an address refused at connect time fails with. */
export class AddressNotAllowed extends Error {
  readonly code = 'EADDRNOTALLOWED';
  constructor(readonly address: string) {
    super(`address not allowed: ${address} is private, loopback or reserved`);
    this.name = 'AddressNotAllowed';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Which addresses the endpoints made through the API may reach: public ones only, unless inside a
 * network of WEBHOOK_ALLOW_NETWORKS. IPv4-mapped, IPv4-compatible and NAT64 forms are judged by the
 * IPv4 address they carry. `lookup` resolves a name as dns.lookup does and fails when any address
 * it gives is refused, so the check is made on the address connected to, at connect time.
 */
export class AddressGuard {
  private readonly refused = new BlockList();
  private readonly allowed = new BlockList();

  constructor(allowNetworks: readonly string[]) {
    for (const [network, prefix] of REFUSED_V4) this.refused.addSubnet(network, prefix, 'ipv4');
    for (const [network, prefix] of REFUSED_V6) this.refused.addSubnet(network, prefix, 'ipv6');
    for (const cidr of allowNetworks) {
      const [network, prefix] = cidr.split('/') as [string, string];
      this.allowed.addSubnet(network, Number(prefix), isIPv4(network) ? 'ipv4' : 'ipv6');
    }
  }

  allows(address: string): boolean {
    const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
    const family = isIP(bare);
    if (family === 0) return false;
    const embedded = family === 6 ? embeddedIpv4(bare) : undefined;
    if (this.inAllowed(bare, family) || (embedded !== undefined && this.allowed.check(embedded, 'ipv4'))) return true;
    if (embedded !== undefined) return !this.refused.check(embedded, 'ipv4');
    return !this.refused.check(bare, family === 4 ? 'ipv4' : 'ipv6');
  }

  /** dns.lookup, refusing names that resolve to an address not allowed. For the `lookup` option of http.request. */
  readonly lookup = (hostname: string, options: unknown, callback?: LookupCallback): void => {
    const done = (typeof options === 'function' ? options : callback) as LookupCallback;
    const asked = (typeof options === 'object' && options !== null ? options : {}) as { all?: boolean; family?: number };
    dnsLookup(hostname, { ...asked, all: true }, (error, addresses) => {
      if (error) return done(error, asked.all ? [] : '', 0);
      const refused = addresses.find((one) => !this.allows(one.address));
      if (refused) return done(new AddressNotAllowed(refused.address) as NodeJS.ErrnoException, asked.all ? [] : '', 0);
      if (asked.all) return done(null, addresses);
      const first = addresses[0]!;
      done(null, first.address, first.family);
    });
  };

  private inAllowed(address: string, family: number): boolean {
    return this.allowed.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** The IPv4 address an IPv6 one carries: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) or NAT64 (64:ff9b::/96). */
function embeddedIpv4(address: string): string | undefined {
  const groups = expand(address);
  if (groups === undefined) return undefined;
  const zeros = (count: number) => groups.slice(0, count).every((group) => group === 0);
  const mapped = zeros(5) && groups[5] === 0xffff;
  const compatible = zeros(6) && (groups[6] !== 0 || groups[7]! > 1);
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0);
  if (!mapped && !compatible && !nat64) return undefined;
  return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included). */
function expand(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const bytes = tail[1]!.split('.').map(Number);
    text = text.slice(0, -tail[1]!.length) + `${((bytes[0]! << 8) | bytes[1]!).toString(16)}:${((bytes[2]! << 8) | bytes[3]!).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const missing = 8 - left.length - right.length;
  if (rest === undefined ? missing !== 0 : missing < 0) return undefined;
  return [...left, ...Array<string>(rest === undefined ? 0 : missing).fill('0'), ...right].map((group) => parseInt(group, 16));
}
