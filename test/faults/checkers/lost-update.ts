import type { Anomaly, Op } from './history.js';

const CHECKER = 'lost-update';

/** Two conditional writes on the same ETag of the same user never both succeed. */
export function checkLostUpdates(history: Op[]): Anomaly[] {
  const winners = new Map<string, Op[]>();
  for (const op of history) {
    if ((op.kind !== 'cas-put' && op.kind !== 'cas-patch') || op.outcome !== 'ok') continue;
    const key = `${op.userId}/${op.etag}`;
    winners.set(key, [...(winners.get(key) ?? []), op]);
  }
  return [...winners.values()]
    .filter((ops) => ops.length > 1)
    .map((ops) => ({ checker: CHECKER, message: `${ops.length} writes with If-Match ${ops[0]!.etag} on user ${ops[0]!.userId} all succeeded`, ops: ops.map((op) => op.id) }));
}
