export interface PollOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Re-checks `probe` every `intervalMs` until it returns a value other than undefined, and fails
 * with `what` once `timeoutMs` has passed: a bounded wait for state that settles on its own.
 */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 15_000, intervalMs = 50 }: PollOptions = {},
): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > giveUpAt) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** pollUntil for a yes-or-no check: resolves once `check` answers true. */
export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, options: PollOptions = {}): Promise<void> {
  await pollUntil(what, async () => ((await check()) ? true : undefined), options);
}
