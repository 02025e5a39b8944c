import { Agent as HttpAgent, request as httpRequest, type Agent, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import type { AddressGuard } from './address-guard.js';
import { literalAddress } from './literal-address.js';
import { networkFailure, type NetworkFailure } from './network-failure.js';

/** The most of an answer's body an attempt keeps: enough to show an integrator why. */
const BODY_BYTES = 1024;
/** An endpoint's idle connection is closed after this long (receivers commonly close theirs after 5 s). */
const IDLE_MS = 4000;

/** How one POST to an endpoint ended. */
export type PostResult =
  /** A 2xx answer in time: acknowledged. */
  | { kind: 'acknowledged'; status: number; body: string | null; durationMs: number }
  /**
   * Anything else the endpoint is answerable for: a failed attempt, said in a few words in `error`
   * (for last_error and the log) and in one short word or phrase in `reason` (null when `status`
   * says why).
   */
  | { kind: 'failed'; error: string; reason: string | null; status: number | null; body: string | null; durationMs: number }
  /** Cut short by `stop` (this process stopping or losing the lease): not an attempt at all. */
  | { kind: 'stopped' };

export interface PostOptions {
  /** Undefined: no filtering (the operator's WEBHOOK_URLS). */
  guard?: AddressGuard | undefined;
  /** One endpoint's keep-alive agents; undefined: a connection per attempt. */
  agents?: EndpointAgents | undefined;
}

/** The agents of one endpoint: its connections, kept between its attempts. */
export interface EndpointAgents {
  http: HttpAgent;
  https: HttpsAgent;
}

/** What the exchange with the endpoint came to, before it is judged. */
type Exchange =
  /** A status arrived; `body` is what was read of the first BODY_BYTES by the end of the attempt. */
  | { ended: 'answered'; status: number; body: string | null }
  | { ended: 'timeout' }
  | { ended: 'error'; error: unknown }
  | { ended: 'stopped' };

/**
 * POSTs `body` with `headers` to `url`: a 2xx status acknowledges; a redirect is not followed (it
 * is a failure: a receiver that moved must be reconfigured). The whole attempt, from connecting to
 * the first BODY_BYTES of the answer's body, takes at most `timeoutMs`; the rest of the body is
 * never read, so a large or endless one costs nothing. An answer read to its end leaves its
 * connection to the endpoint's agents (`agents`) for the next attempt; any other is closed. With a
 * `guard`, no connection is made to an address it refuses.
 */
export async function post(url: string, body: string, headers: Record<string, string>, timeoutMs: number, stop: AbortSignal, options: PostOptions = {}): Promise<PostResult> {
  if (stop.aborted) return { kind: 'stopped' };
  const startedAt = performance.now();
  const failed = ({ error, reason }: NetworkFailure): PostResult => ({ kind: 'failed', error, reason, status: null, body: null, durationMs: Math.round(performance.now() - startedAt) });
  let target: URL;
  try {
    target = new URL(url);
  } catch (error) {
    return failed(networkFailure(error));
  }
  const { guard } = options;
  const address = literalAddress(target);
  // Node looks up host names only: an address written in the URL is judged here, before connecting.
  if (guard !== undefined && address !== undefined && !guard.allows(address)) return failed(networkFailure({ code: 'EADDRNOTALLOWED' }));
  const agent = target.protocol === 'https:' ? options.agents?.https : options.agents?.http;
  const exchange = await exchangeWith(target, body, headers, timeoutMs, stop, address === undefined ? guard?.lookup : undefined, agent);
  const durationMs = Math.round(performance.now() - startedAt);
  switch (exchange.ended) {
    case 'stopped':
      return { kind: 'stopped' };
    case 'timeout':
      return failed({ error: `no answer within ${timeoutMs / 1000} s`, reason: 'timeout' });
    case 'error':
      return failed(networkFailure(exchange.error));
    case 'answered': {
      const { status } = exchange;
      if (status >= 200 && status < 300) return { kind: 'acknowledged', status, body: exchange.body, durationMs };
      const redirect = status >= 300 && status < 400;
      return {
        kind: 'failed',
        error: redirect ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`,
        reason: redirect ? 'redirect not followed' : null,
        status,
        body: exchange.body,
        durationMs,
      };
    }
  }
}

/** One request and what came of it, within `timeoutMs` or until `stop`; never rejects, and leaves no connection open. */
function exchangeWith(
  target: URL,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  stop: AbortSignal,
  lookup: LookupFunction | undefined,
  agent: Agent | undefined,
): Promise<Exchange> {
  return new Promise((resolve) => {
    let status: number | undefined;
    let request: ClientRequest | undefined;
    let response: IncomingMessage | undefined;
    const read: Buffer[] = [];
    let readBytes = 0;
    let settled = false;
    /** `whole`: the answer was read to its end, so its connection may serve the next attempt (with an agent that keeps it). */
    const settle = (exchange: Exchange, whole = false): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
      if (!whole || agent === undefined) {
        response?.destroy();
        request?.destroy();
      }
      resolve(exchange);
    };
    const answered = (whole = false): void => settle({ ended: 'answered', status: status!, body: readBytes === 0 ? null : textOf(read) }, whole);
    const ended = (): void => (status === undefined ? settle({ ended: 'timeout' }) : answered());
    const onStop = (): void => settle({ ended: 'stopped' });
    const timer = setTimeout(ended, timeoutMs);
    stop.addEventListener('abort', onStop, { once: true });
    try {
      request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, {
        method: 'POST',
        // The endpoint's own agent, keeping its connections for its next attempts (never another
        // endpoint's: each was checked by this endpoint's guard when made); else one per attempt.
        agent: agent ?? false,
        headers: { 'content-type': 'application/json', 'user-agent': 'user-service-webhooks', ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ...(lookup === undefined ? {} : { lookup }),
      });
    } catch (error) {
      settle({ ended: 'error', error });
      return;
    }
    // An error after the status (the body cut short, the request's body refused) keeps the status.
    request.on('error', (error) => (status === undefined ? settle({ ended: 'error', error }) : answered()));
    request.on('response', (res) => {
      response = res;
      status = res.statusCode;
      res.on('data', (chunk: Buffer) => {
        read.push(chunk);
        readBytes += chunk.length;
        if (readBytes >= BODY_BYTES) answered();
      });
      res.on('end', () => answered(true));
      res.on('error', () => answered());
      res.on('close', () => answered());
    });
    request.end(body);
  });
}

/** The first BODY_BYTES as UTF-8 text, without a character cut in two at the end. */
function textOf(chunks: Buffer[]): string {
  return new StringDecoder('utf8').write(Buffer.concat(chunks).subarray(0, BODY_BYTES));
}

/** Keep-alive agents for one endpoint: at most `sockets` connections, an idle one closed after a while. */
export function endpointAgents(sockets: number): EndpointAgents {
  const options = { keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets, timeout: IDLE_MS, scheduling: 'lifo' as const };
  return { http: new HttpAgent(options), https: new HttpsAgent(options) };
}
