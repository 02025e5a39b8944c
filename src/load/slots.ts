/** At most `size` tasks at once; the others wait their turn, first come first served. */
export class Slots {
  private taken = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private size: number) {}

  /** From now on at most `size` at once: tasks under way go on, and waiting ones start as places allow. */
  resize(size: number): void {
    this.size = size;
    this.admit();
  }

  /** A place now, if one is free and nobody waits: the function that gives it back (the first call does, later ones nothing). */
  tryTake(): (() => void) | undefined {
    if (this.taken >= this.size || this.waiting.length > 0) return undefined;
    this.taken++;
    return this.giver();
  }

  /** A place once it is this caller's turn. */
  async waitForTurn(): Promise<() => void> {
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    return this.giver();
  }

  /** Runs the task in a place: at once when one is free, so it starts before this returns. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    const giveBack = this.tryTake() ?? (await this.waitForTurn());
    try {
      return await task();
    } finally {
      giveBack();
    }
  }

  private giver(): () => void {
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.taken--;
      this.admit();
    };
  }

  private admit(): void {
    while (this.taken < this.size && this.waiting.length > 0) {
      this.taken++;
      this.waiting.shift()!();
    }
  }
}
