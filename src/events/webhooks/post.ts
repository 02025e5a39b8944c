import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { AddressGuard } from './address-guard.js';

/** How one POST to an endpoint ended. */
export type PostResult =
  /** A 2xx answer in time: acknowledged. */
  | { kind: 'acknowledged'; status: number; body: string | null; durationMs: number }
  /**
   * Anything else the endpoint is answerable for: `error` in a few words for last_error and the log,
   * `reason` the short word of the attempts log (null when a status answered: it says why).
   */
  | { kind: 'failed'; error: string; reason: string | null; status: number | null; body: string | null; durationMs: number }
  /** Cut short by `stop` (this process stopping or losing the lease): not an attempt at all. */
  | { kind: 'stopped' };

export interface PostOptions {
  /** The address filter; undefined: none (the operator's WEBHOOK_URLS). */
  guard?: AddressGuard | undefined;
}

/** The most of an answer's body read (and kept in the attempts log). */
export const MAX_ANSWER_BYTES = 1024;

interface Answer {
  status: number;
  body: string | null;
}

/**
 * POSTs `body` with `headers` to `url`: a 2xx status within `timeoutMs` acknowledges; a redirect is
 * never followed (it is a failure: a receiver that moved must be reconfigured). At most the first
 * 1 024 bytes of the answer are read, within the same time, then the connection is dropped, so a
 * large or endless answer costs nothing. With a guard, the address connected to must be one it
 * allows: a literal host is checked before connecting, a name as it is resolved.
 */
export async function post(url: string, body: string, headers: Record<string, string>, timeoutMs: number, stop: AbortSignal, options: PostOptions = {}): Promise<PostResult> {
  if (stop.aborted) return { kind: 'stopped' };
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (options.guard && isIP(host) !== 0 && !options.guard.allows(host)) {
    return { kind: 'failed', error: `address not allowed: ${host}`, reason: 'address not allowed', status: null, body: null, durationMs: elapsed() };
  }
  let answer: Answer | undefined;
  try {
    answer = await exchange(target, body, headers, timeoutMs, stop, options.guard, (status) => {
      answer = { status, body: null };
    });
  } catch (error) {
    if (stop.aborted) return { kind: 'stopped' };
    const timedOut = (error as Error).name === 'TimeoutError';
    // The status arrived but the body did not end in time: the status is the answer.
    if (!(timedOut && answer !== undefined)) return failure(error as NodeJS.ErrnoException, timeoutMs, elapsed());
  }
  const { status, body: text } = answer!;
  if (status >= 200 && status < 300) return { kind: 'acknowledged', status, body: text, durationMs: elapsed() };
  const redirect = status >= 300 && status < 400;
  return {
    kind: 'failed',
    error: redirect ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`,
    reason: redirect ? 'redirect not followed' : null,
    status,
    body: text,
    durationMs: elapsed(),
  };
}

/** One request: resolves with the status and the first bytes of the body; `onStatus` hears the status as soon as it comes. */
function exchange(
  target: URL,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  stop: AbortSignal,
  guard: AddressGuard | undefined,
  onStatus: (status: number) => void,
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'user-service-webhooks',
        'content-length': String(Buffer.byteLength(body)),
        ...headers,
      },
      ...(guard ? { lookup: guard.lookup } : {}),
    });
    const timer = setTimeout(() => end(Object.assign(new Error(`no answer within ${timeoutMs / 1000} s`), { name: 'TimeoutError' })), timeoutMs);
    const onStop = (): void => end(new Error('stopped'));
    stop.addEventListener('abort', onStop, { once: true });
    let settled = false;
    function end(error: Error | undefined, answer?: Answer): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
      req.destroy();
      if (error) reject(error);
      else resolve(answer!);
    }
    req.on('error', (error) => end(error));
    req.on('response', (res: IncomingMessage) => {
      onStatus(res.statusCode ?? 0);
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (): void => {
        const bytes = Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES);
        end(undefined, { status: res.statusCode ?? 0, body: bytes.length === 0 ? null : bytes.toString('utf8') });
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_ANSWER_BYTES) finish();
      });
      res.on('end', finish);
      res.on('error', (error) => end(error));
    });
    req.end(body);
  });
}

/** A request that got no status: why, in a few words and in the attempts log's word. */
function failure(error: NodeJS.ErrnoException, timeoutMs: number, durationMs: number): PostResult {
  if (error.name === 'TimeoutError') return { kind: 'failed', error: `no answer within ${timeoutMs / 1000} s`, reason: 'timeout', status: null, body: null, durationMs };
  const code = typeof error.code === 'string' ? error.code : undefined;
  const reason =
    code === 'EADDRNOTALLOWED' ? 'address not allowed'
    : code === 'ECONNREFUSED' ? 'refused'
    : code === 'ECONNRESET' || code === 'EPIPE' ? 'reset'
    : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'name not resolved'
    : code === 'EHOSTUNREACH' || code === 'ENETUNREACH' ? 'unreachable'
    : code?.startsWith('ERR_TLS') || code?.startsWith('ERR_SSL') || /certificate|SSL|TLS/i.test(error.message) ? 'tls error'
    : 'request failed';
  if (code === 'EADDRNOTALLOWED') return { kind: 'failed', error: error.message, reason, status: null, body: null, durationMs };
  return { kind: 'failed', error: `request failed: ${code ?? error.message}`.slice(0, 200), reason, status: null, body: null, durationMs };
}
