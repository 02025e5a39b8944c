import type { Outcome } from '../checkers/history.js';

/** 503s the service sends before it touches any data (README, Errors): the request changed nothing. */
const NOTHING_CHANGED_503 = new Set(['Service busy, retry shortly', 'Service starting, retry shortly']);

/**
 * How the client must take an answer: a 2xx is acknowledged; a 4xx or a 503 above changed nothing;
 * anything else (a 500, which the service sends when the outcome is unknown; no answer at all) may
 * or may not have happened.
 */
export function outcomeOf(status: number | undefined, body: unknown): Outcome {
  if (status === undefined) return 'unknown';
  if (status >= 200 && status < 300) return 'ok';
  if (status >= 400 && status < 500) return 'failed';
  const error = (body as { error?: unknown } | undefined)?.error;
  if (status === 503 && typeof error === 'string' && NOTHING_CHANGED_503.has(error)) return 'failed';
  return 'unknown';
}
