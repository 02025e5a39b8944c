import { padded, paddedSize } from '../../db/batcher.js';
import type { Database, StatementRunner } from '../../db/database.js';
import type { Deadline } from '../../db/deadline.js';
import { sql } from '../../db/statements.js';
import { StorageError } from '../../errors/storage-error.js';
import type { ChangeOrigin, NewUser, UserUpdate, UserWrites } from './user-writes.js';

/** Each change one statement, committed on its own: no events are recorded (EVENTS off, the default). */
export class PlainWrites implements UserWrites {
  constructor(private readonly db: Database) {}

  async createAll(users: readonly NewUser[], deadline: Deadline): Promise<number[]> {
    const values = users.flatMap((user) => [user.name, user.email]);
    const rows = await this.db.write<Array<{ id: number }>>(sql.createUsers(users.length), values, deadline);
    if (rows.length !== users.length) throw new StorageError(new Error(`INSERT returned ${rows.length} ids for ${users.length} rows`));
    return rows.map((row) => row.id);
  }

  async createOne(user: NewUser, deadline: Deadline): Promise<number> {
    return (await this.db.write(sql.createUser, [user.name, user.email], deadline)).insertId;
  }

  createWith(user: NewUser, deadline: Deadline, also: (run: StatementRunner, id: number) => Promise<void>): Promise<number> {
    return this.db.transaction(async (run) => {
      const { insertId } = await run(sql.createUser, [user.name, user.email]);
      await also(run, insertId);
      return insertId;
    }, deadline);
  }

  /** One statement leaves each user as its last change does (as if they ran in order). */
  async updateAll(changes: readonly UserUpdate[], deadline: Deadline): Promise<boolean> {
    const targets = latestOfEachUser(changes);
    const result = await this.db.write(sql.updateUsers(paddedSize(targets.length)), updateValues(targets), deadline);
    return result.affectedRows === targets.length;
  }

  async updateOne(user: UserUpdate, deadline: Deadline): Promise<boolean> {
    return (await this.db.write(sql.updateUser, [user.name, user.email, user.id], deadline)).affectedRows > 0;
  }

  async remove(id: number, _origin: ChangeOrigin | undefined, deadline: Deadline): Promise<boolean> {
    return (await this.db.write(sql.deleteUser, [id], deadline)).affectedRows > 0;
  }

  async updateIfTag(user: UserUpdate, hash: string, deadline: Deadline): Promise<boolean> {
    return (await this.db.write(sql.updateUserIfTag, [user.name, user.email, user.id, hash], deadline)).affectedRows > 0;
  }

  async removeIfTag(id: number, hash: string, _origin: ChangeOrigin | undefined, deadline: Deadline): Promise<boolean> {
    return (await this.db.write(sql.deleteUserIfTag, [id, hash], deadline)).affectedRows > 0;
  }
}

/** Each user's last change, in the order the users first appear. */
export function latestOfEachUser(changes: readonly UserUpdate[]): UserUpdate[] {
  return [...new Map(changes.map((change) => [change.id, change])).values()];
}

/** sql.updateUsers's values for the users, padded to the statement's size: (id, name) each, (id, email) each, then the ids. */
export function updateValues(users: readonly UserUpdate[]): unknown[] {
  const rows = padded(users);
  return [...rows.flatMap((user) => [user.id, user.name]), ...rows.flatMap((user) => [user.id, user.email]), ...rows.map((user) => user.id)];
}
