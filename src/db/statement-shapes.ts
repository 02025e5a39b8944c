/** How batch statements are shaped: repeated placeholder groups, each shape built once. */

/** `group` written `count` times. */
export function marks(count: number, group: string, separator = ', '): string {
  return Array.from({ length: count }, () => group).join(separator);
}

/** A statement built once per count and reused, so each size is prepared (or parsed) once. */
export function memoized(build: (count: number) => string): (count: number) => string {
  const built = new Map<number, string>();
  return (count) => {
    let statement = built.get(count);
    if (statement === undefined) built.set(count, (statement = build(count)));
    return statement;
  };
}
