import assert from 'node:assert/strict';
import { request, type ApiResponse } from '../../helpers/http.js';
import { TEST_PASSWORD } from '../../helpers/service.js';

/**
 * How long a request may go unanswered while the database is away before it counts as hung. The
 * service answers within 5 s (its 4 s operation budget, then a 500); on a busy shared machine the
 * client can see that answer seconds late, so a hang is what stays unanswered for three times that.
 */
export const ANSWER_BOUND_MS = 15_000;

export interface Operation {
  rule: string;
  method: string;
  path: string;
  json?: unknown;
}

/**
 * One request of each kind the API serves from the database. The create carries `marker` in its
 * email, so the test can look for the row afterwards; the update and delete aim at `targetId`.
 */
export function everyOperation(marker: string, targetId: number): Operation[] {
  return [
    { rule: 'list', method: 'GET', path: `/api/users?pwd=${TEST_PASSWORD}` },
    { rule: 'read', method: 'GET', path: '/api/users/1' },
    { rule: 'create', method: 'POST', path: '/api/users', json: { name: 'Fault Test', email: `${marker}@example.com` } },
    { rule: 'update', method: 'PUT', path: `/api/users/${targetId}`, json: { name: `Updated ${marker}`, email: 'u@example.com' } },
    { rule: 'delete', method: 'DELETE', path: `/api/users/${targetId}` },
  ];
}

/** Sends the request; a response not complete within ANSWER_BOUND_MS fails the test as hung. */
export async function callBounded(baseUrl: string, op: Operation): Promise<ApiResponse> {
  try {
    return await request(baseUrl, op.method, op.path, { json: op.json, timeoutMs: ANSWER_BOUND_MS });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') {
      throw new Error(`${op.method} ${op.path} hung: no complete answer within ${ANSWER_BOUND_MS} ms`);
    }
    throw error;
  }
}

/** The storage failure of the contract: exactly 500 {"error": "Database error"}, as JSON. */
export function assertStorageFailure(res: ApiResponse, rule: string): void {
  assert.equal(res.status, 500, `${rule}: ${res.status} ${res.text}`);
  assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8', `${rule}: JSON`);
  assert.deepEqual(res.json, { error: 'Database error' }, `${rule}: ${res.text}`);
}

/** What each operation answers when the database works. */
export function assertSucceeded(res: ApiResponse, op: Operation): void {
  const expected = op.method === 'POST' ? 201 : 200;
  assert.equal(res.status, expected, `${op.rule}: ${res.status} ${res.text}`);
}
