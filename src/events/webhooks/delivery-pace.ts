/**
 * An attempt still this young is taken to be working (signing, writing, reading a quick answer);
 * older, it only waits for a slow receiver and costs nothing, so it gives its place back.
 */
const WORKING_MS = 50;

/**
 * How many attempts one process works on at once, across all its endpoints: with a hundred
 * endpoints behind, delivery takes about the CPU one endpoint does, and requests keep the rest.
 * An attempt holds its place until it ends or has waited WORKING_MS for its answer, so endpoints
 * that answer slowly or never hold no place from the others. Places are given first come, first
 * served, so every endpoint with work gets its turn.
 */
export class DeliveryPace {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(places: number) {
    this.free = places;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let held = true;
    const giveBack = (): void => {
      if (!held) return;
      held = false;
      clearTimeout(timer);
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
    const timer = setTimeout(giveBack, WORKING_MS);
    try {
      return await task();
    } finally {
      giveBack();
    }
  }
}
