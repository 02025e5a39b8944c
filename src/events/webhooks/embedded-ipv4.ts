/**
 * How an IPv6 address carries an IPv4 one: `mapped` (::ffff:a.b.c.d, the socket API's view of an
 * IPv4 peer) and `compatible` (::a.b.c.d, deprecated) are that IPv4 address itself; `translated`
 * (NAT64 64:ff9b::a.b.c.d, 6to4 2002:aabb:ccdd::) is reached through a gateway, so only the IPv4
 * address's own range says whether it is public.
 */
export interface EmbeddedIpv4 {
  form: 'mapped' | 'compatible' | 'translated';
  address: string;
}

/** The IPv4 address inside `address` (a valid IPv6 address without a zone), or undefined when it carries none. */
export function embeddedIpv4(address: string): EmbeddedIpv4 | undefined {
  const groups = ipv6Groups(address);
  const zeroes = (from: number, to: number): boolean => groups.slice(from, to).every((group) => group === 0);
  if (zeroes(0, 5) && groups[5] === 0xffff) return { form: 'mapped', address: ipv4Of(groups[6]!, groups[7]!) };
  // :: and ::1 are IPv6's own unspecified and loopback addresses, not IPv4 0.0.0.0 and 0.0.0.1.
  if (zeroes(0, 6) && (groups[6] !== 0 || groups[7]! > 1)) return { form: 'compatible', address: ipv4Of(groups[6]!, groups[7]!) };
  if (zeroes(0, 4) && groups[4] === 0xffff && groups[5] === 0) return { form: 'translated', address: ipv4Of(groups[6]!, groups[7]!) };
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeroes(2, 6)) return { form: 'translated', address: ipv4Of(groups[6]!, groups[7]!) };
  if (groups[0] === 0x2002) return { form: 'translated', address: ipv4Of(groups[1]!, groups[2]!) };
  return undefined;
}

/** The eight 16-bit groups of a valid IPv6 address, `::` expanded and a trailing dotted quad turned into two groups. */
function ipv6Groups(address: string): number[] {
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const text = quad === null ? address : `${address.slice(0, quad.index)}${hexPair(quad[1]!, quad[2]!)}:${hexPair(quad[3]!, quad[4]!)}`;
  const [head = '', tail] = text.split('::');
  const parsed = (part: string): number[] => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  if (tail === undefined) return parsed(head);
  const before = parsed(head);
  const after = parsed(tail);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

function hexPair(high: string, low: string): string {
  return ((Number(high) << 8) | Number(low)).toString(16);
}

function ipv4Of(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}
