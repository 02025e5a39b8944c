import { linkedAbort } from './linked-abort.js';

/** How one POST to an endpoint ended. */
export type PostResult =
  /** A 2xx answer in time: acknowledged. */
  | { kind: 'acknowledged' }
  /** Anything else the endpoint is answerable for: a failed attempt, said in a few words (for last_error and the log). */
  | { kind: 'failed'; error: string }
  /** Cut short by `stop` (this process stopping or losing the lease): not an attempt at all. */
  | { kind: 'stopped' };

/**
 * POSTs `body` with `headers` to `url` with Node's fetch: a 2xx status within `timeoutMs` acknowledges;
 * a redirect is not followed (it is a failure: a receiver that moved must be reconfigured); the
 * response body is never read, only cancelled, so a large or endless one costs nothing.
 */
export async function post(url: string, body: string, headers: Record<string, string>, timeoutMs: number, stop: AbortSignal): Promise<PostResult> {
  if (stop.aborted) return { kind: 'stopped' };
  // Either ends the request: this process stopping, or the endpoint's time running out.
  const timeout = AbortSignal.timeout(timeoutMs);
  const { controller, dispose } = linkedAbort(stop);
  const onTimeout = (): void => controller.abort(timeout.reason);
  timeout.addEventListener('abort', onTimeout, { once: true });
  let status: number;
  try {
    const res = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'user-agent': 'user-service-webhooks', ...headers },
      redirect: 'manual',
      signal: controller.signal,
    });
    status = res.status;
    await res.body?.cancel().catch(() => {});
  } catch (error) {
    if (stop.aborted) return { kind: 'stopped' };
    return { kind: 'failed', error: timeout.aborted ? `no answer within ${timeoutMs / 1000} s` : describeFailure(error) };
  } finally {
    timeout.removeEventListener('abort', onTimeout);
    dispose();
  }
  if (status >= 200 && status < 300) return { kind: 'acknowledged' };
  return { kind: 'failed', error: status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}` };
}

/** `request failed: ECONNREFUSED`, ...: the cause of a request that got no status. */
function describeFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return `request failed: ${cause.code}`;
  if (typeof cause?.message === 'string') return `request failed: ${cause.message}`.slice(0, 200);
  return `request failed: ${(error as Error).message}`.slice(0, 200);
}
