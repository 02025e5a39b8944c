import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DISCARD_MAX_BYTES, DISCARD_TIMEOUT_MS } from '../../src/http/discard-body.js';
import { portOf, request, type ApiResponse } from '../helpers/http.js';
import { RawConnection } from '../helpers/raw-connection.js';
import { startService, type RunningService } from '../helpers/service.js';
import { assertErrorBody, idByEmail, tableSnapshot, usersFromDatabase } from './support/contract.js';

let service: RunningService;
before(async () => {
  service = await startService('body');
});
after(() => service.close());

const MIB = 1024 * 1024;
const validJson = JSON.stringify({ name: 'Body Tester', email: 'body@example.com' });

/** POST creates, PUT replaces user 4: both read their body the same way. */
const writes = [
  { method: 'POST', path: '/api/users' },
  { method: 'PUT', path: '/api/users/4' },
] as const;

function send(method: string, path: string, body: string | Uint8Array, contentType?: string): Promise<ApiResponse> {
  return request(service.baseUrl, method, path, {
    body,
    headers: contentType === undefined ? {} : { 'content-type': contentType },
  });
}

/** Runs a request that must be refused and proves the table is exactly as before. */
async function refused(run: () => Promise<ApiResponse>, status: number, message: string): Promise<void> {
  const before = await tableSnapshot(service.db);
  const res = await run();
  assert.equal(res.status, status, res.text);
  assertErrorBody(res, message);
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  assert.deepEqual(await tableSnapshot(service.db), before, 'nothing stored on a 4xx');
}

/** A JSON object with valid name and email, padded to exactly `bytes` bytes. */
function objectOfSize(bytes: number, email: string): string {
  const head = `{"name":"Big","email":"${email}","pad":"`;
  const tail = '"}';
  return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
}

function chunk(data: string): string {
  return `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`;
}

describe('Content-Type other than JSON -> 415', () => {
  const unsupported: Array<string | undefined> = [
    undefined,
    'text/plain',
    'text/plain;charset=UTF-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=xyz',
    'application/xml',
    'text/json',
    'application/jsonx',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
  ];
  for (const { method, path } of writes) {
    for (const contentType of unsupported) {
      test(`${method} with ${contentType === undefined ? 'no Content-Type' : `Content-Type ${contentType}`} -> 415`, () =>
        refused(
          () => send(method, path, contentType === undefined ? new TextEncoder().encode(validJson) : validJson, contentType),
          415,
          'Content-Type must be application/json',
        ));
    }
  }

  for (const contentType of ['application/json', 'Application/JSON', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"']) {
    test(`POST with Content-Type ${contentType} is accepted -> 201`, async () => {
      const email = `ct-${contentType.length}-${contentType.charCodeAt(0)}@example.com`;
      const res = await send('POST', '/api/users', JSON.stringify({ name: 'CT', email }), contentType);
      assert.equal(res.status, 201, res.text);
      await idByEmail(service.db, email);
    });
  }
});

describe('a body that is not JSON -> 400 "Invalid JSON body"', () => {
  const invalid = ['', ' ', '{', '{"name": "a", "email": "b"', "{'name':'a','email':'b'}", '{name: "a"}', 'nul', '{"name":"a","email":"b"}x', '{"name":"a",}'];
  for (const { method, path } of writes) {
    for (const body of invalid) {
      test(`${method} with body ${JSON.stringify(body)} -> 400 Invalid JSON body`, () =>
        refused(() => send(method, path, body, 'application/json'), 400, 'Invalid JSON body'));
    }
    test(`${method} with a body that is not UTF-8 -> 400 Request body is not valid UTF-8`, () =>
      refused(
        // Valid JSON if the 0xff byte were silently replaced: only a strict decoder refuses it.
        () => send(method, path, Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff]), Buffer.from('","email":"a@b.c"}')]), 'application/json'),
        400,
        'Request body is not valid UTF-8',
      ));
  }
});

describe('a JSON body that is not an object -> 400', () => {
  const notObjects = ['null', '[]', '[{"name":"a","email":"b@c.d"}]', '42', '"name"', 'true', 'false'];
  for (const { method, path } of writes) {
    for (const body of notObjects) {
      test(`${method} with body ${body} -> 400 Request body must be a JSON object`, () =>
        refused(() => send(method, path, body, 'application/json'), 400, 'Request body must be a JSON object'));
    }
  }
});

describe('name and email rules -> 400, nothing stored', () => {
  const cases: Array<{ rule: string; body: Record<string, unknown>; message: string }> = [
    { rule: 'whitespace-only name counts as empty', body: { name: '   ', email: 'a@b.c' }, message: 'Name and email required' },
    { rule: 'whitespace-only email counts as empty', body: { name: 'A', email: ' \t ' }, message: 'Name and email required' },
    { rule: 'newline-only name counts as empty', body: { name: '\n\r\n', email: 'a@b.c' }, message: 'Name and email required' },
    { rule: 'no-break-space name counts as empty', body: { name: '\u00a0\u3000', email: 'a@b.c' }, message: 'Name and email required' },
    { rule: 'name of 101 characters', body: { name: 'n'.repeat(101), email: 'a@b.c' }, message: 'name must be at most 100 characters' },
    { rule: 'email of 101 characters', body: { name: 'A', email: `${'e'.repeat(91)}@example.c` }, message: 'email must be at most 100 characters' },
    { rule: 'name of 101 emoji (101 code points)', body: { name: '😀'.repeat(101), email: 'a@b.c' }, message: 'name must be at most 100 characters' },
    { rule: 'name of 100 characters plus a combining mark', body: { name: `${'a'.repeat(100)}\u0301`, email: 'a@b.c' }, message: 'name must be at most 100 characters' },
    { rule: 'name is a number', body: { name: 123, email: 'a@b.c' }, message: 'name must be a string' },
    { rule: 'name is zero', body: { name: 0, email: 'a@b.c' }, message: 'name must be a string' },
    { rule: 'name is a boolean', body: { name: true, email: 'a@b.c' }, message: 'name must be a string' },
    { rule: 'name is false', body: { name: false, email: 'a@b.c' }, message: 'name must be a string' },
    { rule: 'name is an object', body: { name: { first: 'A' }, email: 'a@b.c' }, message: 'name must be a string' },
    { rule: 'name is an array of strings', body: { name: ['A'], email: 'a@b.c' }, message: 'name must be a string' },
    { rule: 'email is a number', body: { name: 'A', email: 42 }, message: 'email must be a string' },
    { rule: 'email is an array', body: { name: 'A', email: [] }, message: 'email must be a string' },
    { rule: 'email is null (missing)', body: { name: 'A', email: null }, message: 'Name and email required' },
  ];
  for (const { method, path } of writes) {
    for (const { rule, body, message } of cases) {
      test(`${method}: ${rule} -> 400 ${message}`, () =>
        refused(() => request(service.baseUrl, method, path, { json: body }), 400, message));
    }
  }
});

describe('lengths are counted in code points: exactly 100 is accepted and stored as sent', () => {
  const accepted = [
    { rule: '100 ASCII characters', name: 'a'.repeat(100) },
    { rule: '100 emoji', name: '😀'.repeat(100) },
    { rule: '100 CJK characters', name: '漢'.repeat(100) },
    { rule: '100 code points of letters with combining marks', name: 'e\u0301'.repeat(50) },
    { rule: '100 supplementary-plane CJK characters', name: '𠮷'.repeat(100) },
  ];
  for (const [index, { rule, name }] of accepted.entries()) {
    test(`name of ${rule} -> 201, read back unchanged`, async () => {
      const email = `len${index}-${'x'.repeat(100 - `len${index}-@example.com`.length)}@example.com`;
      assert.equal([...email].length, 100);
      const res = await request(service.baseUrl, 'POST', '/api/users', { json: { name, email } });
      assert.equal(res.status, 201, res.text);
      const id = await idByEmail(service.db, email);
      const read = await request(service.baseUrl, 'GET', `/api/users/${id}`);
      assert.equal((read.json as { name: string }).name, name);
      assert.equal((read.json as { email: string }).email, email);
      const [stored] = await service.db.query<Array<{ chars: number }>>('SELECT CHAR_LENGTH(name) AS chars FROM users WHERE id = ?', [id]);
      assert.equal(stored!.chars, 100);
    });
  }

  test('PUT with a 100-emoji name -> 200, stored unchanged', async () => {
    const name = '🎉'.repeat(100);
    const res = await request(service.baseUrl, 'PUT', '/api/users/5', { json: { name, email: 'five@example.com' } });
    assert.equal(res.status, 200, res.text);
    const [user] = await usersFromDatabase(service.db, 'WHERE id = 5');
    assert.equal(user!.name, name);
  });
});

describe('id and created_at in a body are ignored', () => {
  test('POST with id and created_at -> 201, a new id is assigned, created_at is the insertion time', async () => {
    const [existing] = await usersFromDatabase(service.db, 'WHERE id = 7');
    const res = await request(service.baseUrl, 'POST', '/api/users', {
      json: { id: 7, created_at: '2001-02-03T04:05:06.000Z', name: 'Sneaky', email: 'sneaky@example.com' },
    });
    assert.equal(res.status, 201);
    const id = await idByEmail(service.db, 'sneaky@example.com');
    assert.ok(id > 10, `a fresh id, got ${id}`);
    const [created] = await usersFromDatabase(service.db, 'WHERE id = ?', [id]);
    assert.notEqual(created!.created_at, '2001-02-03T04:05:06.000Z');
    const [now] = await service.db.query<Array<{ ts: string | number }>>('SELECT UNIX_TIMESTAMP() AS ts');
    assert.ok(Date.parse(created!.created_at!) / 1000 <= Number(now!.ts), 'created_at is not in the future');
    assert.ok(Date.parse(created!.created_at!) / 1000 > Number(now!.ts) - 3600, 'created_at is the insertion time');
    assert.deepEqual((await usersFromDatabase(service.db, 'WHERE id = 7'))[0], existing, 'user 7 is untouched');
  });

  test('POST with an unused id -> no row gets that id', async () => {
    const res = await request(service.baseUrl, 'POST', '/api/users', {
      json: { id: 777777, name: 'Chooser', email: 'chooser@example.com' },
    });
    assert.equal(res.status, 201);
    assert.deepEqual(await usersFromDatabase(service.db, 'WHERE id = 777777'), []);
  });

  test('PUT with id and created_at -> 200, only name and email change', async () => {
    const [six] = await usersFromDatabase(service.db, 'WHERE id = 6');
    const [eight] = await usersFromDatabase(service.db, 'WHERE id = 8');
    const res = await request(service.baseUrl, 'PUT', '/api/users/6', {
      json: { id: 8, created_at: '2001-02-03T04:05:06.000Z', name: 'Six', email: 'six@example.com' },
    });
    assert.equal(res.status, 200);
    assert.deepEqual((await usersFromDatabase(service.db, 'WHERE id = 6'))[0], { ...six!, name: 'Six', email: 'six@example.com' });
    assert.deepEqual((await usersFromDatabase(service.db, 'WHERE id = 8'))[0], eight);
  });
});

describe('body size: more than 1 MiB -> 413; what the client is still sending is read and dropped, then the connection closes', () => {
  const head = (method: string, path: string, extra: string) =>
    `${method} ${path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n${extra}\r\n`;
  /** A close that does not wait for the discard time limit comes before it (with a second to spare for a loaded machine). */
  const WITHOUT_WAITING_MS = DISCARD_TIMEOUT_MS - 1000;
  /** How long a close may take that does wait for the discard time limit. */
  const AFTER_WAITING_MS = DISCARD_TIMEOUT_MS + 10_000;

  async function expect413(connection: RawConnection, before: unknown[]): Promise<void> {
    const res = await connection.finalResponse();
    assert.equal(res.status, 413);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.deepEqual(JSON.parse(res.text), { error: 'Request body too large (limit 1 MiB)' });
    assert.equal(res.headers['connection'], 'close');
    assert.deepEqual(await tableSnapshot(service.db), before);
  }

  /** Writes `bytes` of filler in 64 KiB pieces; false as soon as a write fails. */
  async function writeFiller(connection: RawConnection, bytes: number): Promise<boolean> {
    for (let sent = 0; sent < bytes; sent += 64 * 1024) {
      if (!(await connection.write('x'.repeat(Math.min(64 * 1024, bytes - sent))))) return false;
    }
    return true;
  }

  /** The server read everything the client sent and closed the connection cleanly (no reset). */
  async function expectClosedAfterReading(connection: RawConnection, closeWithinMs: number): Promise<void> {
    assert.ok(await connection.closedWithin(closeWithinMs), 'the server closes the connection');
    assert.equal(connection.failure, undefined, 'the connection is closed, not reset: every byte sent was read');
  }

  for (const { method, path } of writes) {
    test(`${method} declaring Content-Length of 2 MiB -> 413 before any body byte is sent; the body sent anyway is read to its end, then the connection closes`, async () => {
      const before = await tableSnapshot(service.db);
      const connection = await RawConnection.open(portOf(service.baseUrl));
      try {
        await connection.write(head(method, path, `Content-Length: ${2 * MIB}\r\n`));
        await expect413(connection, before);
        assert.ok(await writeFiller(connection, 2 * MIB), 'the whole body can be sent after the 413');
        await expectClosedAfterReading(connection, AFTER_WAITING_MS);
        assert.deepEqual(await tableSnapshot(service.db), before);
      } finally {
        connection.destroy();
      }
    });

    test(`${method} with a chunked body growing past 1 MiB -> 413 once the limit is crossed; the rest is read to its last chunk, then the connection closes`, async () => {
      const before = await tableSnapshot(service.db);
      const connection = await RawConnection.open(portOf(service.baseUrl));
      try {
        await connection.write(head(method, path, 'Transfer-Encoding: chunked\r\n'));
        await connection.write(chunk(`{"name":"Big","email":"big@example.com","pad":"`));
        const piece = chunk('x'.repeat(64 * 1024));
        let answered = false;
        void connection.finalResponse().then(() => (answered = true), () => (answered = true));
        // 1 MiB + 64 KiB of padding is past the limit; the server answers without waiting for the end.
        for (let sent = 0; sent <= MIB && !answered; sent += 64 * 1024) {
          if (!(await connection.write(piece))) break;
        }
        await expect413(connection, before);
        for (let sent = 0; sent < MIB; sent += 64 * 1024) assert.ok(await connection.write(piece), 'the client may go on sending');
        assert.ok(await connection.write(chunk('"}') + '0\r\n\r\n'));
        await expectClosedAfterReading(connection, AFTER_WAITING_MS);
        assert.deepEqual(await tableSnapshot(service.db), before);
      } finally {
        connection.destroy();
      }
    });

    test(`${method} declaring 2 MiB with Expect: 100-continue -> 413 without 100 Continue, the connection closed without waiting for the body`, async () => {
      const before = await tableSnapshot(service.db);
      const connection = await RawConnection.open(portOf(service.baseUrl));
      try {
        await connection.write(head(method, path, `Content-Length: ${2 * MIB}\r\nExpect: 100-continue\r\n`));
        assert.equal((await connection.response(0)).status, 413, 'the first response is the refusal: no 100 Continue');
        await expect413(connection, before);
        assert.ok(await connection.closedWithin(WITHOUT_WAITING_MS), 'closed at once: the body was never invited');
      } finally {
        connection.destroy();
      }
    });

    test(`${method} with Expect: 100-continue and a body within the limit -> 100 Continue, then the body is read and stored`, async () => {
      const email = `continue-${method.toLowerCase()}@example.com`;
      const body = JSON.stringify({ name: 'Continued', email });
      const connection = await RawConnection.open(portOf(service.baseUrl));
      try {
        await connection.write(head(method, path, `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n`));
        assert.equal((await connection.response(0)).status, 100, 'told to go on before sending the body');
        await connection.write(body);
        const res = await connection.finalResponse();
        assert.equal(res.status, method === 'POST' ? 201 : 200, res.text);
        await idByEmail(service.db, email);
      } finally {
        connection.destroy();
      }
    });
  }

  test('POST with Expect: 100-continue and a Content-Type other than JSON -> 415 without 100 Continue', async () => {
    const connection = await RawConnection.open(portOf(service.baseUrl));
    try {
      await connection.write('POST /api/users HTTP/1.1\r\nHost: test\r\nContent-Type: text/plain\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n');
      const res = await connection.response(0);
      assert.equal(res.status, 415, 'the first response is the refusal: no 100 Continue');
    } finally {
      connection.destroy();
    }
  });

  test('GET with Expect: 100-continue -> answered without 100 Continue: its route reads no body', async () => {
    const connection = await RawConnection.open(portOf(service.baseUrl));
    try {
      await connection.write('GET /api/users/1 HTTP/1.1\r\nHost: test\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n');
      assert.equal((await connection.response(0)).status, 200);
    } finally {
      connection.destroy();
    }
  });

  test('POST declaring 2 MiB that then sends nothing -> 413, and the connection is closed after the discard time limit', async () => {
    const before = await tableSnapshot(service.db);
    const connection = await RawConnection.open(portOf(service.baseUrl));
    try {
      await connection.write(head('POST', '/api/users', `Content-Length: ${2 * MIB}\r\n`));
      await expect413(connection, before);
      assert.ok(await connection.closedWithin(AFTER_WAITING_MS), 'a client that stops sending does not hold the connection');
    } finally {
      connection.destroy();
    }
  });

  test(`POST declaring more than the ${DISCARD_MAX_BYTES / MIB} MiB the server drops -> 413, the connection closed without waiting for the body`, async () => {
    const before = await tableSnapshot(service.db);
    const connection = await RawConnection.open(portOf(service.baseUrl));
    try {
      await connection.write(head('POST', '/api/users', `Content-Length: ${DISCARD_MAX_BYTES + 1}\r\n`));
      await expect413(connection, before);
      assert.ok(await connection.closedWithin(WITHOUT_WAITING_MS), 'closed at once: that much is not read');
    } finally {
      connection.destroy();
    }
  });

  test(`POST with a chunked body that never ends -> 413, and the connection closed once ${DISCARD_MAX_BYTES / MIB} MiB more were dropped`, async () => {
    const before = await tableSnapshot(service.db);
    const connection = await RawConnection.open(portOf(service.baseUrl));
    try {
      await connection.write(head('POST', '/api/users', 'Transfer-Encoding: chunked\r\n'));
      const piece = chunk('x'.repeat(64 * 1024));
      const most = 4 * (MIB + DISCARD_MAX_BYTES);
      let sent = 0;
      while (sent < most && (await connection.write(piece))) sent += 64 * 1024;
      assert.ok(sent < most, `the server stopped reading before ${most} bytes`);
      await expect413(connection, before);
      assert.ok(await connection.closedWithin(AFTER_WAITING_MS), 'the server closes the connection');
    } finally {
      connection.destroy();
    }
  });

  test('POST with exactly 1 MiB + 1 byte (Content-Length) -> 413, the connection closed once the body is read', async () => {
    const before = await tableSnapshot(service.db);
    const body = objectOfSize(MIB + 1, 'over@example.com');
    const connection = await RawConnection.open(portOf(service.baseUrl));
    try {
      await connection.write(head('POST', '/api/users', `Content-Length: ${Buffer.byteLength(body)}\r\n`) + body);
      await expect413(connection, before);
      await expectClosedAfterReading(connection, AFTER_WAITING_MS);
    } finally {
      connection.destroy();
    }
  });

  test('POST with exactly 1 MiB (Content-Length) passes the size check -> 201', async () => {
    const body = objectOfSize(MIB, 'exact@example.com');
    assert.equal(Buffer.byteLength(body), MIB);
    const res = await send('POST', '/api/users', body, 'application/json');
    assert.equal(res.status, 201, res.text);
    await idByEmail(service.db, 'exact@example.com');
  });

  test('POST with exactly 1 MiB sent chunked passes the size check -> 201', async () => {
    const body = objectOfSize(MIB, 'exact-chunked@example.com');
    const connection = await RawConnection.open(portOf(service.baseUrl));
    try {
      await connection.write(head('POST', '/api/users', 'Transfer-Encoding: chunked\r\n'));
      for (let offset = 0; offset < body.length; offset += 100_000) {
        await connection.write(chunk(body.slice(offset, offset + 100_000)));
      }
      await connection.write('0\r\n\r\n');
      const res = await connection.finalResponse();
      assert.equal(res.status, 201, res.text);
      await idByEmail(service.db, 'exact-chunked@example.com');
    } finally {
      connection.destroy();
    }
  });

  test('a client that disconnects in the middle of its body stores nothing and the service keeps serving', async () => {
    const before = await tableSnapshot(service.db);
    const connection = await RawConnection.open(portOf(service.baseUrl));
    await connection.write(head('POST', '/api/users', 'Content-Length: 100\r\n') + '{"name":"Half","email"');
    connection.destroy();
    await connection.closed;
    const res = await request(service.baseUrl, 'GET', '/api/users/1');
    assert.equal(res.status, 200);
    assert.deepEqual(await tableSnapshot(service.db), before);
  });
});
