import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createConnectionSource } from '../../src/db/connect.js';
import type { ConnectionSource } from '../../src/db/connection-source.js';
import { endPool } from '../../src/db/pool.js';
import { defaultTuning } from '../../src/db/pool-tuning.js';
import { ensureUsersTable } from '../../src/startup/schema.js';
import { attributesOf, type FinishedSpan } from '../../src/tracing/finished-span.js';
import { exportStatementsTo } from '../../src/tracing/statement-spans.js';
import { continueTrace } from '../../src/tracing/trace-context.js';
import { UserStore } from '../../src/users/storage/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
let pool: ConnectionSource;
let store: UserStore;
const recorded: FinishedSpan[] = [];
before(async () => {
  db = await createTestDatabase('statement_spans');
  await ensureUsersTable(db.config);
  pool = createConnectionSource(db.config, defaultTuning);
  store = new UserStore(pool);
  exportStatementsTo((span) => recorded.push(span));
});
after(async () => {
  exportStatementsTo(undefined);
  await endPool(pool);
  await db.drop();
});

const sampled = () => continueTrace(undefined, undefined, () => true);

// Reads asked for in the same tick leave in one batch (db/batcher.ts): one statement serves them all.
test('a batched read is one statement span, a child of the first sampled request, linked to every sampled request it served', async () => {
  const [a, b, c] = [sampled(), sampled(), sampled()];
  const unsampled = continueTrace(undefined, undefined);
  recorded.length = 0;
  const rows = await Promise.all([store.get(1, a), store.get(2, b), store.get(3, unsampled), store.get(2, c)]);
  assert.deepEqual(rows.map((row) => row?.id), [1, 2, 3, 2]);
  assert.equal(recorded.length, 1, 'one statement');
  const [statement] = recorded;
  assert.equal(statement!.span.traceId, a.traceId);
  assert.equal(statement!.span.parentSpanId, a.spanId);
  assert.deepEqual(statement!.links!.map((link) => link.spanId), [a.spanId, b.spanId, c.spanId], 'every sampled request, the unsampled one left out');
  assert.equal(attributesOf(statement!)['db.operation.name'], 'SELECT');
  assert.equal(attributesOf(statement!)['db.namespace'], db.config.database);
});

test('a read of one request alone: its span is the parent, with no links; an unsampled request makes no span', async () => {
  const alone = sampled();
  recorded.length = 0;
  await store.get(1, alone);
  await store.get(1, continueTrace(undefined, undefined));
  assert.equal(recorded.length, 1);
  assert.equal(recorded[0]!.span.parentSpanId, alone.spanId);
  assert.deepEqual(recorded[0]!.links, []);
});

test('a statement that fails ends its span with the error', async () => {
  const span = sampled();
  recorded.length = 0;
  await assert.rejects(store.create('x'.repeat(200), 'long@x.io', { span }));
  const failed = recorded.find((each) => each.error !== undefined);
  assert.ok(failed, `a failed span among ${recorded.map((each) => each.name).join(', ')}`);
  assert.equal(failed.span.parentSpanId, span.spanId);
  assert.ok(!String(attributesOf(failed)['db.query.text']).includes('long@x.io'), 'no values in the text');
});
