import type { ServerResponse } from 'node:http';
import type { RateLimitSettings } from '../config/environment.js';
import { HttpError } from '../errors/http-error.js';
import { messages } from '../errors/messages.js';
import type { Admission } from '../http/server.js';
import type { RateLimitKey } from './rate-limit-key.js';
import type { Take } from './window-counter.js';

/** Takes one request from a key's allowance: here (WindowCounter), or from the primary of several workers, which answers undefined if it cannot. */
export interface RequestCounter {
  take(key: string): Take | Promise<Take | undefined>;
}

/** The policy's name in both headers (draft-ietf-httpapi-ratelimit-headers-11). */
const POLICY = '"default"';

/**
 * RATE_LIMIT: every API request spends one of its client's `requests` per window. An admitted one
 * carries `RateLimit-Policy` and `RateLimit` (what is left, and in how many seconds the window
 * ends) on whatever response it gets; one over the limit is refused 429 with the same headers and
 * `Retry-After` (the window's end), before any route runs.
 */
export function rateLimitAdmission(settings: RateLimitSettings, counter: RequestCounter, keyOf: RateLimitKey): Admission {
  // Built once: the policy never changes.
  const policy = `${POLICY};q=${settings.requests};w=${settings.windowSeconds}`;
  const answer = (res: ServerResponse, take: Take | undefined): void => {
    // No answer from the primary (gone or stuck): let the request through rather than fail it.
    if (take === undefined) return;
    const [remaining, resetAt] = take;
    const seconds = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
    if (remaining < 0) {
      throw new HttpError(429, messages.tooManyRequests, {
        'Retry-After': String(seconds),
        'RateLimit-Policy': policy,
        RateLimit: `${POLICY};r=0;t=${seconds}`,
      });
    }
    res.setHeader('RateLimit-Policy', policy);
    res.setHeader('RateLimit', `${POLICY};r=${remaining};t=${seconds}`);
  };
  const admit = (res: ServerResponse, key: string): void | Promise<void> => {
    const take = counter.take(key);
    if (take instanceof Promise) return take.then((taken) => answer(res, taken));
    answer(res, take);
  };
  return (req, res, client) => {
    const key = keyOf(req, res, client);
    return typeof key === 'string' ? admit(res, key) : key.then((named) => admit(res, named));
  };
}
