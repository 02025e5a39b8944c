/**
 * The counts the workers of WORKERS=N keep in their primary, so that each limit holds for the
 * whole service (worker side: primary-link.ts and shared-attempts.ts; primary side:
 * primary-counters.ts).
 *
 * - `limits:ask` (worker to primary): every count the worker needed in one event-loop turn, in one
 *   message. `take` spends one request of a RATE_LIMIT key; `fail` and `pass` report a wrong and a
 *   right list password from an address.
 * - `limits:answer` (primary to that worker): one result per call, in order. `take`: [requests left,
 *   or -1 when refused; when the window ends (ms)]. `fail` and `pass`: [0, 0] when the request goes
 *   on (counted, or its mistakes forgotten); [when its block ends (ms), 0] when the address is
 *   blocked. null for a call the primary cannot count.
 * - `limits:blocked` (primary to every worker): addresses just blocked, with when each block ends,
 *   so a worker refuses them without asking. Sent before the answer that caused it.
 * - `limits:hello` (worker to primary, once it listens): the primary answers with a `limits:blocked`
 *   of every address blocked now, so a replaced worker knows them too.
 */
export type CountOp = 'take' | 'fail' | 'pass';

export type CountResult = readonly [number, number];

export interface CountAsk {
  type: 'limits:ask';
  id: number;
  calls: Array<[CountOp, string]>;
}

export interface CountAnswer {
  type: 'limits:answer';
  id: number;
  results: Array<CountResult | null>;
}

export interface BlockedPush {
  type: 'limits:blocked';
  blocked: Array<[address: string, until: number]>;
}

export const helloMessage = { type: 'limits:hello' } as const;

/** A message off an IPC channel: anything, until its `type` says what it is. */
export type Incoming = Partial<CountAsk | CountAnswer | BlockedPush | typeof helloMessage> | null | undefined;
