import assert from 'node:assert/strict';
import type { ApiResponse } from './http.js';

/** An API request before the schema is in place: 503 {"error": "Service starting, retry shortly"}, JSON, with Retry-After in seconds. */
export function assertNotReady(res: ApiResponse, rule: string): void {
  assert.equal(res.status, 503, `${rule}: ${res.status} ${res.text}`);
  assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8', `${rule}: JSON`);
  assert.deepEqual(res.json, { error: 'Service starting, retry shortly' }, `${rule}: ${res.text}`);
  assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/, `${rule}: Retry-After in seconds`);
}
