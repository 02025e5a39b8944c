/** How many users' creation times are remembered: about 100 bytes each. */
const REMEMBERED = 20_000;

/**
 * The creation times of users this process saw lately (read, created, or read to record a change),
 * so that the events of a batch of PUTs need no read of them. A user's creation time never changes,
 * but a restore or a hand-made change could make one remembered here wrong: every write that relies
 * on them also checks them (the UPDATE applies only where they match), and a mismatch forgets them.
 * The oldest go first once REMEMBERED are held.
 */
export class CreationTimes {
  private readonly times = new Map<number, string | null>();

  constructor(private readonly limit = REMEMBERED) {}

  note(id: number, createdAt: string | null): void {
    // Deleted first, so that it becomes the newest in the Map's order.
    this.times.delete(id);
    this.times.set(id, createdAt);
    if (this.times.size > this.limit) this.times.delete(this.times.keys().next().value!);
  }

  /** The time remembered for the user; undefined when none is. */
  of(id: number): string | null | undefined {
    return this.times.get(id);
  }

  forget(ids: Iterable<number>): void {
    for (const id of ids) this.times.delete(id);
  }
}
