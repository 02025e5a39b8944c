/** '000' to '999', the milliseconds of a timestamp. */
const MILLISECONDS = Array.from({ length: 1000 }, (_, ms) => String(ms).padStart(3, '0'));

/**
 * A clock reading as `Date.prototype.toISOString` writes it, for log lines. V8 formats a date
 * through printf, about 7 000 instructions: here the date and time down to the second are formatted
 * once a second, and a reading in the same millisecond as the last one is the same string.
 */
export function isoTimestamps(clock: () => number = Date.now): () => string {
  let second = Number.NaN;
  let upToSecond = '';
  let lastMs = Number.NaN;
  let last = '';
  return () => {
    const ms = clock();
    if (ms === lastMs) return last;
    const atSecond = Math.floor(ms / 1000) * 1000;
    if (atSecond !== second) {
      second = atSecond;
      // `2026-12-05T23:59:12.000Z` without `000Z`; years past 9999 are written longer, hence no fixed cut.
      upToSecond = new Date(atSecond).toISOString().slice(0, -4);
    }
    lastMs = ms;
    last = upToSecond + MILLISECONDS[ms - atSecond]! + 'Z';
    return last;
  };
}
