import type { Anomaly, Op } from './history.js';

const CHECKER = 'exactly-once';

/** A stored user with the marker its create wrote (or a later write kept), as a node holds it. */
export interface MarkedUser {
  id: number;
  name: string;
  email: string;
}

/**
 * No request applied twice: every user a node holds with a create's marker is the user that create
 * acknowledged (its Location), and a create whose outcome was unknown left at most one user.
 */
export function checkExactlyOnce(history: Op[], nodes: MarkedUser[][]): Anomaly[] {
  const anomalies: Anomaly[] = [];
  const creates = history.filter((op) => op.kind === 'create' && op.outcome !== 'failed');
  const markerOf = new Map<string, string>();
  for (const op of creates) {
    markerOf.set(op.value!.name, op.marker!);
    markerOf.set(op.value!.email, op.marker!);
  }
  nodes.forEach((users, index) => {
    const byMarker = new Map<string, number[]>();
    for (const user of users) {
      const marker = markerOf.get(user.name) ?? markerOf.get(user.email);
      if (marker === undefined) continue;
      byMarker.set(marker, [...(byMarker.get(marker) ?? []), user.id]);
    }
    for (const create of creates) {
      const ids = byMarker.get(create.marker!) ?? [];
      const extra = create.userId === undefined ? ids.slice(1) : ids.filter((id) => id !== create.userId);
      if (extra.length > 0) {
        anomalies.push({ checker: CHECKER, message: `create #${create.id} (${create.outcome}) stored more than once on node ${index + 1}: users ${[create.userId, ...extra].filter((id) => id !== undefined).join(', ')}`, ops: [create.id] });
      }
    }
  });
  return anomalies;
}
