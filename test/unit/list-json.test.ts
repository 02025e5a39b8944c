import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UserArrayBuilder } from '../../src/users/storage/list-layout.js';
import { userJson, type UserRow } from '../../src/users/rules/user.js';

/** A row as listStatements send it (see the ListRow comment in src/users/storage/list-layout.ts). */
function listRow(user: UserRow): Buffer {
  const head = `{"id":${user.id},"name":"${user.name}","email":"${user.email}","created_at":`;
  const count = [...user.name].length;
  return Buffer.from(user.created_at === null ? `${head}null}${count}` : `${head}"${user.created_at}"${count}`);
}

function listOf(rows: Buffer[], chunkBytes?: number): { body: string; chunks: Buffer[] } {
  const list = new UserArrayBuilder(chunkBytes);
  const chunks: Buffer[] = [];
  for (const row of rows) {
    const chunk = list.add(row);
    if (chunk) chunks.push(Buffer.from(chunk));
  }
  chunks.push(list.end());
  const body = Buffer.concat(chunks).toString('utf8');
  return { body, chunks };
}

const user = (id: number, name: string, email = `u${id}@example.com`, created_at: string | null = '2026-11-22 07:24:04'): UserRow => ({ id, name, email, created_at });

describe('the users list assembled from raw rows', () => {
  test('each row becomes exactly the bytes userJson writes for the same user, in order, as one JSON array', () => {
    const users = [user(1, 'John Doe'), user(7, 'Ann'), user(123456, 'Zed', 'z@z.z')];
    assert.equal(listOf(users.map(listRow)).body, `[${users.map(userJson).join(',')}]`);
  });

  test('no users make an empty array', () => {
    assert.equal(listOf([]).body, '[]');
  });

  test('created_at becomes ISO 8601 UTC with .000Z; fractions of a second are dropped, as for a single user', () => {
    const { body } = listOf([listRow(user(1, 'A', 'a@x', '2026-01-02 03:04:05')), listRow(user(2, 'B', 'b@x', '2026-01-02 03:04:05.123456'))]);
    const users = JSON.parse(body) as Array<{ created_at: string }>;
    assert.deepEqual(users.map((one) => one.created_at), ['2026-01-02T03:04:05.000Z', '2026-01-02T03:04:05.000Z']);
  });

  test('a NULL created_at stays null', () => {
    const nameless = user(3, 'No Time', 'none@x', null);
    assert.equal(listOf([listRow(nameless)]).body, `[${userJson(nameless)}]`);
  });

  test('names and emails JSON must escape (quotes, backslashes, control characters) are escaped as userJson escapes them', () => {
    const awkward = [
      user(1, 'quote " inside', 'plain@x'),
      user(2, 'plain', 'back\\slash@x'),
      user(3, 'tab\tnul\u0000', 'e\u001f@x', null),
      user(4, '","email":"fake', '","created_at":"x'),
    ];
    assert.equal(listOf(awkward.map(listRow)).body, `[${awkward.map(userJson).join(',')}]`);
  });

  test('multi-byte characters in the name (counted in characters) pass through unchanged', () => {
    const users = [user(1, 'emoji 😀 CJK 漢字 é e\u0301', '漢@例え.jp'), user(2, 'separators \u2028 \u2029', 's@x')];
    assert.equal(listOf(users.map(listRow)).body, `[${users.map(userJson).join(',')}]`);
  });

  test('a row the database completed itself (NULL name or email) is passed on as it is', () => {
    const complete = '{"id":9,"name":null,"email":"x@y","created_at":"2026-01-02T03:04:05.000Z"}';
    assert.equal(listOf([Buffer.from(complete)]).body, `[${complete}]`);
  });

  test('a row not laid out as the statement lays it out is refused, not sent garbled', () => {
    const list = new UserArrayBuilder();
    assert.throws(() => list.add(Buffer.from('{"id":1,"name":"short","email":"e@x","created_at":"2026-01-02 03:04:05"9')));
    assert.throws(() => list.add(Buffer.from('no layout at all 12')));
    assert.throws(() => list.add(Buffer.from('"12')));
  });

  test('full chunks come out as they fill, none larger than the chunk size, and together make the array', () => {
    const users = Array.from({ length: 200 }, (_, i) => user(i + 1, `User ${i + 1}`));
    const { body, chunks } = listOf(users.map(listRow), 1024);
    assert.equal(body, `[${users.map(userJson).join(',')}]`);
    assert.ok(chunks.length > 10, `${chunks.length} chunks`);
    for (const chunk of chunks) assert.ok(chunk.length <= 1024, `a chunk of ${chunk.length} bytes`);
  });

  test('a row larger than the chunk size still goes out whole, in a chunk of its own size', () => {
    const long = user(1, 'n'.repeat(3000));
    const { body } = listOf([listRow(user(2, 'short')), listRow(long), listRow(user(3, 'after'))], 512);
    assert.deepEqual((JSON.parse(body) as Array<{ id: number }>).map((one) => one.id), [2, 1, 3]);
  });
});
