import { setTimeout as sleep } from 'node:timers/promises';

/** How long after the heal every instance has to count the limits with the others again. */
const REJOIN_WITHIN_MS = 30_000;

/** A gauge's value in a Prometheus exposition, or undefined. */
function gauge(text: string, name: string): number | undefined {
  const line = text.split('\n').find((each) => each.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

/**
 * After a fault healed: every instance counts the shared limits with all the others again (its
 * sync answered within the last 3 s, and it sees every instance live). Returns what is still wrong
 * once REJOIN_WITHIN_MS passed, one line per instance; empty when all rejoined.
 */
export async function sharedLimitsRejoined(baseUrls: readonly string[]): Promise<string[]> {
  const deadline = Date.now() + REJOIN_WITHIN_MS;
  for (;;) {
    const problems: string[] = [];
    for (const baseUrl of baseUrls) {
      const text = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(5000) }).then((res) => res.text(), (error: Error) => error.message);
      const live = gauge(text, 'limits_shared_instances');
      const age = gauge(text, 'limits_sync_age_seconds');
      if (live !== baseUrls.length || age === undefined || age < 0 || age > 3) problems.push(`${baseUrl}: sees ${live} instances, last sync ${age} s ago`);
    }
    if (problems.length === 0 || Date.now() > deadline) return problems;
    await sleep(500);
  }
}
