import { Slots } from '../../load/slots.js';

/**
 * An attempt still this young is taken to be working (signing, writing, reading a quick answer);
 * older, it only waits for a slow receiver and costs nothing, so it gives its place back.
 */
const WORKING_MS = 50;

/**
 * How many attempts to the API's endpoints one process works on at once, across all of them:
 * WEBHOOK_CONCURRENCY, and one only while requests crowd the process (see Crowding), so that
 * however many endpoints wait, delivery yields the CPU to requests and catches up once they
 * ease. An attempt holds its place until it ends or has waited WORKING_MS for its answer, so
 * endpoints that answer slowly or never hold no place from the others. Places are given first
 * come, first served, so every endpoint with work gets its turn.
 */
export class DeliveryPace {
  private readonly places: Slots;

  constructor(private readonly most: number) {
    this.places = new Slots(most);
  }

  /** While crowded, one attempt at a time; otherwise as many as the pace allows. */
  crowd(crowded: boolean): void {
    this.places.resize(crowded ? 1 : this.most);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    const giveBack = this.places.tryTake() ?? (await this.places.waitForTurn());
    const timer = setTimeout(giveBack, WORKING_MS);
    try {
      return await task();
    } finally {
      clearTimeout(timer);
      giveBack();
    }
  }
}
