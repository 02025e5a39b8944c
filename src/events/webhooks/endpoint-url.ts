import type { AddressGuard } from './address-guard.js';
import { literalAddress } from './literal-address.js';

const MAX_LENGTH = 2048;

/**
 * Why `url` cannot be a webhook endpoint made through the API (the 400's message), or undefined
 * when it can. A host written as an IP address is judged here by `guard`; a host name is judged
 * where it matters, on the addresses it resolves to when an attempt connects.
 */
export function endpointUrlProblem(url: unknown, rules: { httpsOnly: boolean; guard: AddressGuard }): string | undefined {
  if (typeof url !== 'string') return 'url must be a string';
  if (url.length > MAX_LENGTH) return `url must be at most ${MAX_LENGTH} characters`;
  const schemes = rules.httpsOnly ? 'https' : 'http or https';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `url must be an absolute ${schemes} URL`;
  }
  if (parsed.protocol !== 'https:' && (rules.httpsOnly || parsed.protocol !== 'http:')) return `url must be an absolute ${schemes} URL`;
  if (parsed.username !== '' || parsed.password !== '') return 'url must not carry a user or password: deliveries are signed';
  const address = literalAddress(parsed);
  if (address !== undefined && !rules.guard.allows(address)) return 'url must not point to a private, loopback or reserved address';
  return undefined;
}
