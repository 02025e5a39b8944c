import type { UserValue } from '../checkers/history.js';

/** What the clients last learnt of a user: its fields and, when known, the ETag that goes with them. */
export interface KnownUser {
  id: number;
  value: UserValue;
  etag?: string;
}

/**
 * The users the workload acts on: those whose create was acknowledged, most recent first, so that
 * the clients crowd onto a few users at a time (the conflicts a checker needs to see).
 */
export class UserPool {
  private readonly users = new Map<number, KnownUser>();
  private readonly recent: number[] = [];

  constructor(private readonly hotSet = 40) {}

  add(user: KnownUser): void {
    this.users.set(user.id, user);
    this.recent.push(user.id);
    if (this.recent.length > this.hotSet) this.recent.shift();
  }

  learn(id: number, value: UserValue, etag?: string): void {
    if (this.users.has(id)) this.users.set(id, { id, value, etag });
  }

  forget(id: number): void {
    this.users.delete(id);
    const at = this.recent.indexOf(id);
    if (at >= 0) this.recent.splice(at, 1);
  }

  pick(random: () => number): KnownUser | undefined {
    if (this.recent.length === 0) return undefined;
    return this.users.get(this.recent[Math.floor(random() * this.recent.length)]!);
  }

  get size(): number {
    return this.users.size;
  }
}
