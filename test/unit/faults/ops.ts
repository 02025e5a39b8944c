import type { Op, OpKind, UserValue } from '../../faults/checkers/history.js';

/** Hand-made histories: an op of user 1 sent at `sent` and answered at `answered` (undefined: no answer). */
let next = 0;
export function op(kind: OpKind, sent: number, answered: number | undefined, fields: Partial<Op> = {}): Op {
  const id = ++next;
  const outcome = fields.outcome ?? (answered === undefined ? 'unknown' : 'ok');
  return { id, requestId: `t-${id}`, kind, instance: 0, sent, answered, outcome, status: outcome === 'ok' ? 200 : undefined, userId: 1, ...fields };
}

export const v = (name: string): UserValue => ({ name, email: `${name}@x.test` });

export const created = (name: string, sent: number, answered: number | undefined, fields: Partial<Op> = {}): Op => op('create', sent, answered, { value: v(name), marker: name, ...fields });
