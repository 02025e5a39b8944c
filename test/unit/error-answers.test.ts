import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QueueFullError } from '../../src/db/batcher.js';
import { DatabaseTimeoutError } from '../../src/db/deadline.js';
import { isDuplicateKey, storageError, wasRefusedByServer, wasRolledBack } from '../../src/db/mysql-errors.js';
import { ConflictError } from '../../src/errors/conflict-error.js';
import { HttpError } from '../../src/errors/http-error.js';
import { messages } from '../../src/errors/messages.js';
import { StorageError } from '../../src/errors/storage-error.js';
import { toHttpError } from '../../src/http/answer-error.js';
import type { Logger } from '../../src/log/logger.js';

/** mysql2's errors, as far as the classification reads them. */
const serverRefusal = Object.assign(new Error('Data too long'), { sqlState: '22001', errno: 1406 });
const duplicateKey = Object.assign(new Error("Duplicate entry 'a@b.c' for key 'users_email_unique'"), { sqlState: '23000', errno: 1062 });
const deadlock = Object.assign(new Error('Deadlock found'), { sqlState: '40001', errno: 1213 });
const connectionLost = Object.assign(new Error('Connection lost: The server closed the connection.'), { fatal: true, code: 'PROTOCOL_CONNECTION_LOST' });
const poolQueueFull = new Error('Queue limit reached.');

describe('storageError: a failed statement gets the kind its cause proves', () => {
  const cases: Array<[string, unknown, boolean, StorageError['kind']]> = [
    ['a full batch queue -> busy', new QueueFullError(), true, 'busy'],
    ["mysql2's full pool queue -> busy", poolQueueFull, false, 'busy'],
    ['a read that failed in any way -> failed', connectionLost, false, 'failed'],
    ['a write the server refused -> failed (nothing changed)', serverRefusal, true, 'failed'],
    ['a write that met a unique key (1062) -> duplicate, not a database failure', duplicateKey, true, 'duplicate'],
    ['a write rolled back by a deadlock -> failed (nothing changed)', deadlock, true, 'failed'],
    ['a write that got no connection in time -> failed (never sent)', new DatabaseTimeoutError('no connection', false), true, 'failed'],
    ['a write whose connection was lost -> unknown outcome', connectionLost, true, 'unknown outcome'],
    ['a write sent but not answered in time -> unknown outcome', new DatabaseTimeoutError('no answer', true), true, 'unknown outcome'],
  ];
  for (const [rule, cause, write, kind] of cases) {
    test(rule, () => {
      const error = storageError(cause, write);
      assert.ok(error instanceof StorageError);
      assert.equal(error.kind, kind);
      assert.equal(error.cause, cause);
      assert.equal(error.message, messages.storage);
    });
  }

  test('a duplicate key is a refusal that changed nothing, never a rolled-back statement to run again', () => {
    assert.equal(isDuplicateKey(duplicateKey), true);
    assert.equal(isDuplicateKey(new StorageError(duplicateKey)), true, 'seen through a StorageError');
    assert.equal(wasRefusedByServer(duplicateKey), true);
    assert.equal(wasRolledBack(duplicateKey), false);
    for (const other of [serverRefusal, deadlock, connectionLost]) assert.equal(isDuplicateKey(other), false);
  });

  test('a StorageError passes through with its kind unchanged', () => {
    const busy = new StorageError(new QueueFullError(), 'busy');
    assert.equal(storageError(busy, true), busy);
  });
});

function recordingLogger() {
  const lines: Array<{ level: string; msg: string; error?: unknown }> = [];
  const logger: Logger = {
    info: (msg) => lines.push({ level: 'info', msg }),
    warn: (msg) => lines.push({ level: 'warn', msg }),
    error: (msg, error) => lines.push({ level: 'error', msg, error }),
    request: () => {},
  };
  return { logger, lines };
}

describe('toHttpError: what the client is told of a thrown value', () => {
  test('a refusal is answered as it is, and nothing is logged', () => {
    const { logger, lines } = recordingLogger();
    const refusal = new HttpError(412, messages.preconditionFailed, { ETag: '"x"' });
    assert.equal(toHttpError(refusal, logger, {}), refusal);
    assert.deepEqual(lines, []);
  });

  test('a conflict -> 409 {"error": its message}, and nothing is logged (the client\'s doing, not a fault)', () => {
    const { logger, lines } = recordingLogger();
    const answer = toHttpError(new ConflictError(messages.emailInUse), logger, {});
    assert.equal(answer.status, 409);
    assert.equal(answer.body, '{"error":"Email already in use"}');
    assert.equal(answer.contentType, 'json');
    assert.deepEqual(lines, []);
  });

  test('a duplicate nothing turned into a conflict -> 500 Database error, logged', () => {
    const { logger, lines } = recordingLogger();
    const answer = toHttpError(new StorageError(duplicateKey, 'duplicate'), logger, {});
    assert.deepEqual([answer.status, JSON.parse(answer.body)], [500, { error: 'Database error' }]);
    assert.equal(lines[0]!.error, duplicateKey);
  });

  test('busy storage -> 503 {"error": "Service busy, retry shortly"} with Retry-After: 1, logged as a warning', () => {
    const { logger, lines } = recordingLogger();
    const answer = toHttpError(new StorageError(new QueueFullError(), 'busy'), logger, {});
    assert.equal(answer.status, 503);
    assert.deepEqual(JSON.parse(answer.body), { error: messages.busy });
    assert.deepEqual(answer.headers, { 'Retry-After': '1' });
    assert.deepEqual(lines.map((line) => line.level), ['warn']);
  });

  for (const kind of ['failed', 'unknown outcome'] as const) {
    test(`${kind} storage -> 500 {"error": "Database error"}, the cause logged and not shown`, () => {
      const { logger, lines } = recordingLogger();
      const answer = toHttpError(new StorageError(serverRefusal, kind), logger, {});
      assert.equal(answer.status, 500);
      assert.deepEqual(JSON.parse(answer.body), { error: 'Database error' });
      assert.equal(answer.contentType, 'json');
      assert.equal(lines.length, 1);
      assert.equal(lines[0]!.error, serverRefusal);
    });
  }

  test('any other error -> 500 {"error": "Internal server error"}, logged', () => {
    const { logger, lines } = recordingLogger();
    const bug = new TypeError('x is undefined');
    const answer = toHttpError(bug, logger, {});
    assert.equal(answer.status, 500);
    assert.deepEqual(JSON.parse(answer.body), { error: 'Internal server error' });
    assert.equal(lines[0]!.error, bug);
  });
});

describe('HttpError: the body shapes of the contract and the older variants', () => {
  test('error shape -> {"error": message} as JSON', () => {
    const error = new HttpError(404, messages.userNotFound);
    assert.equal(error.body, '{"error":"User not found"}');
    assert.equal(error.contentType, 'json');
  });
  test('message shape -> {"message": message} as JSON', () => {
    assert.equal(new HttpError(404, messages.userNotFound, undefined, 'message').body, '{"message":"User not found"}');
  });
  test('text shape -> the message as plain text', () => {
    const error = new HttpError(200, messages.wrongPasswordMate, undefined, 'text');
    assert.equal(error.body, 'Wrong password mate');
    assert.equal(error.contentType, 'text');
  });
});
