import { randomFillSync } from 'node:crypto';

/**
 * Random bytes for the ids every request gets (its X-Request-Id, its trace and span ids), drawn
 * from the CSPRNG 96 KB at a time: a call costs tens of microseconds whatever its size, so a pool
 * refilled every 128 or 170 requests showed in profiles (randomUUID's 2 KB: a quarter of a
 * microsecond a request; a 4 KB trace pool: 0.5% of get-one's busy time).
 */
export const randomBytesPool = Buffer.alloc(96 * 1024);
let next = randomBytesPool.length;

/** Where `count` fresh random bytes start in randomBytesPool; read them before the next call. */
export function takeRandomBytes(count: number): number {
  if (next + count > randomBytesPool.length) {
    randomFillSync(randomBytesPool);
    next = 0;
  }
  const at = next;
  next += count;
  return at;
}
