import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConnectionSource } from '../../src/db/connection-source.js';
import { Database } from '../../src/db/database.js';
import { defaultTuning } from '../../src/db/pool-tuning.js';
import { UserRecords } from '../../src/users/storage/user-records.js';
import type { NewUser, UserUpdate, UserWrites } from '../../src/users/storage/user-writes.js';

/** Writes that succeed and remember how each update arrived: together (one statement) or alone. */
function recordingWrites(recordsEachChange: boolean) {
  const calls: Array<{ kind: 'all' | 'one'; users: UserUpdate[] }> = [];
  const writes: UserWrites = {
    recordsEachChange,
    createAll: async (users: readonly NewUser[]) => users.map((_, i) => i + 1),
    createOne: async () => 1,
    updateAll: async (users) => {
      calls.push({ kind: 'all', users: [...users] });
      return true;
    },
    updateOne: async (user) => {
      calls.push({ kind: 'one', users: [user] });
      return true;
    },
    remove: async () => true,
    updateIfTag: async () => true,
    removeIfTag: async () => true,
  };
  return { writes, calls };
}

// Updates only reach the writes: the pool is never asked for a connection.
const unusedPool = {} as ConnectionSource;

function recordsOn(writes: UserWrites): UserRecords {
  return new UserRecords(new Database(unusedPool, 1000, 0), writes, defaultTuning);
}

test('without events, one user twice in a batch is one shared statement carrying the later request', async () => {
  const { writes, calls } = recordingWrites(false);
  const records = recordsOn(writes);
  const found = await Promise.all([
    records.update({ id: 2, name: 'First', email: 'first@x.io' }),
    records.update({ id: 3, name: 'Other', email: 'other@x.io' }),
    records.update({ id: 2, name: 'Second', email: 'second@x.io' }),
  ]);
  assert.deepEqual(found, [true, true, true]);
  assert.deepEqual(calls.map(({ kind, users }) => [kind, users.map((user) => user.name)]), [['all', ['Second', 'Other']]]);
});

test('with events, one user twice in a batch is written request by request in arrival order, so each change is recorded', async () => {
  const { writes, calls } = recordingWrites(true);
  const records = recordsOn(writes);
  await Promise.all([
    records.update({ id: 2, name: 'First', email: 'first@x.io' }),
    records.update({ id: 3, name: 'Other', email: 'other@x.io' }),
    records.update({ id: 2, name: 'Second', email: 'second@x.io' }),
  ]);
  assert.ok(calls.every(({ kind }) => kind === 'one'));
  assert.deepEqual(calls.filter(({ users }) => users[0]!.id === 2).map(({ users }) => users[0]!.name), ['First', 'Second']);
  assert.equal(calls.length, 3);
});
