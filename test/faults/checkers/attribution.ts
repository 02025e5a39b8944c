import type { MarkedUser } from './exactly-once.js';
import type { Op } from './history.js';

/**
 * A create whose outcome was unknown has no id from its answer; when it did happen, its user shows
 * up anyway (in a node's final state, or in a list page) with the create's values. Such a create
 * is given that user's id, so the checkers judge the user with the create that made it. A value
 * found on more than one user stays unattributed: that is the exactly-once checker's to report.
 */
export function attributeUnknownCreates(history: Op[], nodes: MarkedUser[][]): Op[] {
  const idsByName = new Map<string, Set<number>>();
  const saw = (id: number, name: string): void => {
    idsByName.set(name, (idsByName.get(name) ?? new Set()).add(id));
  };
  for (const users of nodes) for (const user of users) saw(user.id, user.name);
  for (const op of history) if (op.kind === 'list') for (const user of op.page ?? []) saw(user.id, user.name);
  return history.map((op) => {
    if (op.kind !== 'create' || op.outcome !== 'unknown' || op.userId !== undefined) return op;
    const ids = [...(idsByName.get(op.value!.name) ?? [])];
    return ids.length === 1 ? { ...op, userId: ids[0] } : op;
  });
}
