/** The largest id the `users.id` column (signed INT) can hold. */
export const MAX_USER_ID = 2_147_483_647;

/**
 * A user id path segment: a canonical unsigned decimal integer (`0` or digits without a leading
 * zero). `abc`, `1.5`, `-1`, `1e3`, `0x10`, `01` and `%31` are not ids: those paths have no route.
 */
export function isIdSegment(segment: string): boolean {
  const length = segment.length;
  if (length === 0) return false;
  if (segment.charCodeAt(0) === 48 /* 0 */) return length === 1;
  for (let i = 0; i < length; i++) {
    const code = segment.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** The id a segment names, or undefined when no row can have it (0, or beyond the column's range). */
export function storableId(segment: string): number | undefined {
  if (segment.length > 10) return undefined;
  const id = Number(segment);
  return id >= 1 && id <= MAX_USER_ID ? id : undefined;
}
