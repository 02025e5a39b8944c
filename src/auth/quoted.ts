const MAX_CHARS = 64;

/**
 * A value taken from an unverified token, as it may appear in a log message: JSON-quoted, so that it
 * carries no control characters or line breaks, and cut short, so that a made-up `kid` of kilobytes
 * does not bloat the log.
 */
export function quoted(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length <= MAX_CHARS ? json : `${json.slice(0, MAX_CHARS)}…`;
}
