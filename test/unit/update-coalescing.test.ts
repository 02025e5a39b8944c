import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConnectionSource } from '../../src/db/connection-source.js';
import { Database } from '../../src/db/database.js';
import { defaultTuning } from '../../src/db/pool-tuning.js';
import { CreationTimes } from '../../src/users/storage/creation-times.js';
import { latestOfEachUser } from '../../src/users/storage/plain-writes.js';
import { UserRecords } from '../../src/users/storage/user-records.js';
import type { NewUser, UserUpdate, UserWrites } from '../../src/users/storage/user-writes.js';

/** Writes that succeed and remember how each update arrived: together (one statement) or alone. */
function recordingWrites() {
  const calls: Array<{ kind: 'all' | 'one'; users: UserUpdate[] }> = [];
  const writes: UserWrites = {
    createAll: async (users: readonly NewUser[]) => users.map((_, i) => i + 1),
    createOne: async () => 1,
    createWith: async () => 1,
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

test('one user twice in a batch is one shared statement given every change in arrival order (the writes keep the later, and record each)', async () => {
  const { writes, calls } = recordingWrites();
  const records = recordsOn(writes);
  const found = await Promise.all([
    records.update({ id: 2, name: 'First', email: 'first@x.io' }),
    records.update({ id: 3, name: 'Other', email: 'other@x.io' }),
    records.update({ id: 2, name: 'Second', email: 'second@x.io' }),
  ]);
  assert.deepEqual(found, [true, true, true]);
  assert.deepEqual(calls.map(({ kind, users }) => [kind, users.map((user) => user.name)]), [['all', ['First', 'Other', 'Second']]]);
});

test('each user is written as its last change leaves it, in the order the users first appear', () => {
  const changes = [
    { id: 2, name: 'First', email: 'first@x.io' },
    { id: 3, name: 'Other', email: 'other@x.io' },
    { id: 2, name: 'Second', email: 'second@x.io' },
  ];
  assert.deepEqual(latestOfEachUser(changes).map((user) => [user.id, user.name]), [[2, 'Second'], [3, 'Other']]);
});

test('creation times are remembered up to a bound, the oldest forgotten first, and a user noted again becomes the newest', () => {
  const times = new CreationTimes(2);
  times.note(1, '2026-01-01 00:00:01');
  times.note(2, null);
  times.note(1, '2026-01-01 00:00:01');
  times.note(3, '2026-01-01 00:00:03');
  assert.deepEqual([times.of(1), times.of(2), times.of(3)], ['2026-01-01 00:00:01', undefined, '2026-01-01 00:00:03']);
  times.forget([1]);
  assert.equal(times.of(1), undefined);
});
