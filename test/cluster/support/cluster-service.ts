import { randomBytes } from 'node:crypto';
import { spawnService, type ChildService } from '../../helpers/child-service.js';
import type { GaleraCluster } from '../../helpers/galera/galera-cluster.js';
import type { GaleraNode } from '../../helpers/galera/galera-node.js';
import { request, type ApiResponse } from '../../helpers/http.js';
import { TEST_PASSWORD } from '../../helpers/service.js';

/** A database name of its own for one scenario: the service creates it on the cluster. */
export function scenarioDatabase(label: string): string {
  return `usvc_${label}_${process.pid}_${randomBytes(3).toString('hex')}`;
}

/** The service as production runs it, WORKERS=2, with DB_HOST listing the nodes in `order` (`env` adds settings). */
export function spawnClusterService(cluster: GaleraCluster, order: number[], database: string, env: Record<string, string> = {}): Promise<ChildService> {
  const servers = order.map((i) => ({ host: '127.0.0.1', port: cluster.nodes[i]!.ports.sql }));
  const db = { servers, user: 'root', password: '', database };
  return spawnService(db, { WORKERS: '2', DB_POOL_SIZE: '8', ...env });
}

/** How many connections the node holds to `database`: proof of which node a service is using. */
export async function connectionsTo(node: GaleraNode, database: string): Promise<number> {
  const rows = await node.query<Array<{ n: number }>>('SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ?', [database]);
  return Number(rows[0]!.n);
}

export interface StoredUser {
  id: number;
  name: string;
  email: string;
}

/** Every user as this node holds it, after it applied every write the cluster committed before. */
export function usersOn(node: GaleraNode, database: string): Promise<StoredUser[]> {
  return node.query<StoredUser[]>(`SELECT id, name, email FROM \`${database}\`.users ORDER BY id`, [], { causal: true });
}

/** The id of each user, by email, from the service's own list. */
export async function idsByEmail(baseUrl: string): Promise<Map<string, number>> {
  const res = await request(baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`);
  if (res.status !== 200) throw new Error(`listing failed: ${res.status} ${res.text}`);
  return new Map((res.json as StoredUser[]).map((user) => [user.email, user.id]));
}

/**
 * An error answer the contract allows while the database fails over: exactly 500 {"error":"Database
 * error"}, or 503 {"error":"Service busy, retry shortly"} with Retry-After: 1 when the wait queue is full.
 */
export function isAllowedError(res: ApiResponse): boolean {
  const body = JSON.stringify(res.json);
  if (res.status === 500) return body === JSON.stringify({ error: 'Database error' });
  return res.status === 503 && res.headers.get('retry-after') === '1' && body === JSON.stringify({ error: 'Service busy, retry shortly' });
}
