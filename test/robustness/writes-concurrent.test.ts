import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request, type ApiResponse } from '../helpers/http.js';
import { startService, type RunningService } from '../helpers/service.js';

let service: RunningService;
before(async () => {
  service = await startService('writes');
});
after(() => service.close());

interface Row {
  id: number;
  name: string;
  email: string;
}

/** One write the client sends, and what the table must show if, and only if, it was acknowledged. */
interface Write {
  method: 'POST' | 'PUT' | 'DELETE';
  path: string;
  json?: { name?: string; email?: string };
  /** The status the contract gives this write. */
  expected: number;
  /** Applies the write to the model of the table. */
  apply(rows: Map<number, Row>): void;
}

async function insertRows(prefix: string, count: number): Promise<Row[]> {
  const values = Array.from({ length: count }, (_, i) => [`${prefix} ${i}`, `${prefix}-${i}@example.com`]);
  await service.db.query('INSERT INTO users (name, email) VALUES ?', [values]);
  return service.db.query<Row[]>('SELECT id, name, email FROM users WHERE email LIKE ? ORDER BY id', [`${prefix}-%`]);
}

function createWrite(i: number): Write {
  const row = { name: `Created ${i}`, email: `created-${i}@example.com` };
  return {
    method: 'POST',
    path: '/api/users',
    json: row,
    expected: 201,
    // The id is the database's choice: matched by email below.
    apply: (rows) => rows.set(-1 - i, { id: -1 - i, ...row }),
  };
}

function updateWrite(target: Row, i: number): Write {
  const change = { name: `Updated ${i}`, email: `updated-${i}@example.com` };
  return {
    method: 'PUT',
    path: `/api/users/${target.id}`,
    json: change,
    expected: 200,
    apply: (rows) => rows.set(target.id, { id: target.id, ...change }),
  };
}

function deleteWrite(target: Row): Write {
  return { method: 'DELETE', path: `/api/users/${target.id}`, expected: 200, apply: (rows) => rows.delete(target.id) };
}

/** Writes the contract refuses: each must leave the table as it was. */
function refusedWrites(control: Row[], missingId: number): Write[] {
  const nothing = (): void => {};
  return [
    ...Array.from({ length: 10 }, (_, i): Write => ({
      method: 'POST',
      path: '/api/users',
      json: { name: `Refused ${i}` },
      expected: 400,
      apply: nothing,
    })),
    ...control.map((row): Write => ({
      method: 'PUT',
      path: `/api/users/${row.id}`,
      json: { name: '', email: 'refused@example.com' },
      expected: 400,
      apply: nothing,
    })),
    ...Array.from({ length: 10 }, (_, i): Write => ({
      method: 'PUT',
      path: `/api/users/${missingId + i}`,
      json: { name: 'Nobody', email: 'nobody@example.com' },
      expected: 404,
      apply: nothing,
    })),
    ...Array.from({ length: 10 }, (_, i): Write => ({
      method: 'DELETE',
      path: `/api/users/${missingId + i}`,
      expected: 404,
      apply: nothing,
    })),
  ];
}

/** One of each kind in turn, so that every kind is in flight at the same time. */
function interleave(kinds: Write[][]): Write[] {
  const longest = Math.max(...kinds.map((kind) => kind.length));
  return Array.from({ length: longest }, (_, i) => kinds.flatMap((kind) => (i < kind.length ? [kind[i]!] : []))).flat();
}

/** Without ids for the created rows: they are compared by content. */
const comparable = (rows: Iterable<Row>): string[] =>
  [...rows].map((row) => `${row.id < 0 ? 'new' : row.id}|${row.name}|${row.email}`).sort();

/** The status that tells the client its write was stored: 201 Created, or 200 for a replace or delete. */
const acknowledgement: Record<Write['method'], number> = { POST: 201, PUT: 200, DELETE: 200 };

describe('no acknowledged write is lost under concurrent load', () => {
  test('hundreds of creates, updates and deletes in flight: every 2xx is in the table, nothing the client was told failed is', async () => {
    const targets = await insertRows('target', 100);
    const victims = await insertRows('victim', 100);
    const control = await insertRows('control', 10);
    const model = new Map((await service.db.users()).map((row) => [row.id, row]));
    const missingId = Math.max(...model.keys()) + 1000;

    const writes = interleave([
      Array.from({ length: 200 }, (_, i) => createWrite(i)),
      targets.map((row, i) => updateWrite(row, i)),
      victims.map((row) => deleteWrite(row)),
      refusedWrites(control, missingId),
    ]);
    const answers: ApiResponse[] = await Promise.all(
      writes.map((write) => request(service.baseUrl, write.method, write.path, write.json ? { json: write.json } : {})),
    );

    const unexpected: string[] = [];
    answers.forEach((res, i) => {
      const write = writes[i]!;
      if (res.status !== write.expected) unexpected.push(`${write.method} ${write.path} -> ${res.status} ${res.text}`);
      // The model follows what the client was told: only an acknowledgement makes a write count.
      if (res.status === acknowledgement[write.method]) write.apply(model);
    });

    const table = await service.db.users();
    assert.deepEqual(comparable(table.map((row) => (row.email.startsWith('created-') ? { ...row, id: -1 } : row))), comparable(model.values()));
    assert.deepEqual(unexpected, [], 'every write got the status the contract gives it');
  });
});
