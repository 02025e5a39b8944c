import { isIP } from 'node:net';
import type { AddressGuard } from './address-guard.js';

const MAX_URL = 2048;

/**
 * Why a URL cannot be an endpoint made through the API, or undefined when it can: an absolute http
 * or https URL (https only with WEBHOOK_HTTPS_ONLY) of at most 2 048 characters, with no user or
 * password. A host that is an address (in any spelling the URL parser reads: `127.1`, `2130706433`,
 * `0x7f000001`, `[::ffff:127.0.0.1]`) must be one the guard allows; a name is checked when it is
 * resolved, at each attempt.
 */
export function endpointUrlProblem(url: unknown, rules: { httpsOnly: boolean; guard: AddressGuard }): string | undefined {
  const schemes = rules.httpsOnly ? 'an https URL (WEBHOOK_HTTPS_ONLY=on)' : 'an http or https URL';
  if (typeof url !== 'string') return `url must be ${schemes}`;
  if (url.length > MAX_URL) return `url must be at most ${MAX_URL} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `url must be ${schemes}`;
  }
  if (parsed.protocol !== 'https:' && (parsed.protocol !== 'http:' || rules.httpsOnly)) return `url must be ${schemes}`;
  if (parsed.username !== '' || parsed.password !== '') return 'url must not carry a user or password: deliveries are signed with the endpoint secret';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !rules.guard.allows(host)) return 'url must not point to a private, loopback or reserved address';
  return undefined;
}
