import { isIP } from 'node:net';

/**
 * The IP address a parsed URL's host is written as (`[::1]` gives `::1`; the URL parser has already
 * turned `127.1`, `2130706433` and `0x7f000001` into `127.0.0.1`), or undefined for a host name.
 */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? undefined : host;
}
