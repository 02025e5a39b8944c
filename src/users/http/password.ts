import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a candidate with the access password in constant time: both sides are hashed first,
 * so neither the content nor the length of the password leaks through timing.
 */
export function passwordChecker(password: string): (candidate: string | undefined) => boolean {
  const expected = digest(password);
  return (candidate) => candidate !== undefined && timingSafeEqual(digest(candidate), expected);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** The `pwd` parameter when the query carries exactly one; repeated or absent means no password. */
export function singlePassword(query: string): string | undefined {
  if (query === '') return undefined;
  const values = new URLSearchParams(query).getAll('pwd');
  return values.length === 1 ? values[0] : undefined;
}
