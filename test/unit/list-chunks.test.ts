import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, test } from 'node:test';
import { asUserJson, UserListChunks } from '../../src/users/storage/list-chunks.js';
import { userJson, type UserRow } from '../../src/users/rules/user.js';

/** A row as sql.listUsersAsJson sends it: the user's JSON object, as the database writes it. */
const listRow = (user: UserRow): { json: Buffer } => ({ json: Buffer.from(userJson(user)) });

async function listOf(rows: Array<{ json: Buffer }>, chunkBytes?: number): Promise<{ body: string; chunks: Buffer[] }> {
  const list = new UserListChunks(chunkBytes);
  const chunks: Buffer[] = [];
  list.on('data', (chunk: Buffer) => chunks.push(chunk));
  await pipeline(Readable.from(rows), list);
  return { body: Buffer.concat(chunks).toString('utf8'), chunks };
}

const user = (id: number, name: string, email = `u${id}@example.com`, created_at: string | null = '2026-11-22 07:24:04'): UserRow => ({ id, name, email, created_at });

describe('the users list assembled from rows of complete user objects', () => {
  test('each row becomes exactly the bytes userJson writes for the same user, in order, as one JSON array', async () => {
    const users = [user(1, 'John Doe'), user(7, 'Ann'), user(123456, 'Zed', 'z@z.z', null)];
    assert.equal((await listOf(users.map(listRow))).body, `[${users.map(userJson).join(',')}]`);
  });

  test('no users make an empty array', async () => {
    assert.equal((await listOf([])).body, '[]');
  });

  test('full chunks come out as they fill, none larger than the chunk size, and together make the array', async () => {
    const users = Array.from({ length: 200 }, (_, i) => user(i + 1, `User ${i + 1}`));
    const { body, chunks } = await listOf(users.map(listRow), 1024);
    assert.equal(body, `[${users.map(userJson).join(',')}]`);
    assert.ok(chunks.length > 10, `${chunks.length} chunks`);
    for (const chunk of chunks) assert.ok(chunk.length <= 1024, `a chunk of ${chunk.length} bytes`);
  });

  test('a row larger than the chunk size still goes out whole, in a chunk of its own size', async () => {
    const long = user(1, 'n'.repeat(3000));
    const { body } = await listOf([listRow(user(2, 'short')), listRow(long), listRow(user(3, 'after'))], 512);
    assert.deepEqual((JSON.parse(body) as Array<{ id: number }>).map((one) => one.id), [2, 1, 3]);
  });
});

describe('a user object as the database escapes it, written as GET by id writes it', () => {
  test('control characters escaped with capital hex digits (\\u001F) get the small ones JSON.stringify writes', () => {
    const fromDatabase = '{"id":3,"name":"tab\\tnul\\u0000 \\u000B","email":"e\\u001F@x","created_at":null}';
    assert.equal(asUserJson(Buffer.from(fromDatabase)).toString(), userJson(user(3, 'tab\tnul\u0000 \u000b', 'e\u001f@x', null)));
  });

  test('quotes, backslashes and a NULL name keep their escapes and their key order', () => {
    const fromDatabase = '{"id":4,"name":null,"email":"\\",\\"created_at\\":\\"x\\\\","created_at":"2026-01-02T03:04:05.000Z"}';
    assert.equal(asUserJson(Buffer.from(fromDatabase)).toString(), fromDatabase);
  });

  test('a row without escapes is passed on as it is, not copied', () => {
    const plain = Buffer.from(userJson(user(5, 'emoji 😀 CJK 漢字 é e\u0301')));
    assert.equal(asUserJson(plain), plain);
  });
});
