export interface PollOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Errors of a probe that could not reach what it asks at that moment (a busy or restarting server,
 * a node in a state transfer): the state is not seen yet, which the next probe may see.
 */
const UNREACHED = new Set(['ETIMEDOUT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'PROTOCOL_CONNECTION_LOST']);

function unreached(error: unknown): boolean {
  return UNREACHED.has(String((error as { code?: unknown } | null)?.code));
}

/**
 * Re-checks `probe` every `intervalMs` until it returns a value other than undefined, and fails
 * with `what` once `timeoutMs` has passed: a bounded wait for state that settles on its own. A probe
 * that cannot reach its server is asked again; any other error it throws ends the wait at once.
 */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 15_000, intervalMs = 50 }: PollOptions = {},
): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  let lastUnreached: Error | undefined;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      if (!unreached(error)) throw error;
      lastUnreached = error as Error;
    }
    if (Date.now() > giveUpAt) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${lastUnreached ? ` (last probe: ${lastUnreached.message})` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** pollUntil for a yes-or-no check: resolves once `check` answers true. */
export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, options: PollOptions = {}): Promise<void> {
  await pollUntil(what, async () => ((await check()) ? true : undefined), options);
}
