import { MAX_TRACKED_ADDRESSES, type GuessingGuard } from './failed-attempts.js';
import type { GuessingLimits } from '../config/environment.js';
import { helloMessage, type BlockedPush, type CountResult, type Incoming } from './messages.js';
import type { PrimaryLink } from './primary-link.js';
import { setNewest } from './newest-last.js';

/** The process's IPC channel, as far as this file uses it. */
interface Channel {
  send?(message: typeof helloMessage): boolean;
  on(event: 'message', listener: (message: Incoming) => void): unknown;
}

/**
 * Wrong list passwords counted for the whole service by the primary of several workers, and this
 * worker's view of them:
 * - blocked addresses, pushed by the primary as it blocks them: refused here without asking.
 * - suspects, the addresses this worker reported a wrong password for within the window: a right
 *   password from one asks the primary first, whose answer is exact (it also forgets the mistakes).
 * Any other right password, the usual case, costs two map lookups and no message. A wrong one costs
 * one round trip to the primary, whose verdict decides 401 or 429: the failure past the limit is 429
 * whichever worker it reached, however requests race.
 *
 * What the view can miss: a right password reaching a worker in the instant between a block and the
 * push telling that worker of it, if the worker has not seen the address fail (at most one such
 * request per worker and block); and the mistakes an address made on other workers are forgotten
 * only when it succeeds on one that saw it fail (else they age out with the window).
 * Both maps hold at most MAX_TRACKED_ADDRESSES (or the testing bound), forgetting the oldest first.
 */
export class SharedAttempts implements GuessingGuard {
  private readonly blocked = new Map<string, number>();
  private readonly suspects = new Map<string, number>();
  private readonly windowMs: number;
  private readonly maxTracked: number;

  constructor(
    private readonly link: PrimaryLink,
    limits: GuessingLimits,
    channel: Channel = process as Channel,
  ) {
    this.windowMs = limits.windowSeconds * 1000;
    this.maxTracked = limits.testing?.maxTracked ?? MAX_TRACKED_ADDRESSES;
    channel.on('message', (message) => {
      if (message?.type !== 'limits:blocked' || !Array.isArray(message.blocked)) return;
      for (const [address, until] of (message as BlockedPush).blocked) this.remember(this.blocked, address, until);
    });
    channel.send?.(helloMessage);
  }

  blockedForMs(address: string): number {
    if (this.blocked.size === 0) return 0;
    const until = this.blocked.get(address);
    if (until === undefined) return 0;
    const waitMs = until - Date.now();
    if (waitMs > 0) return waitMs;
    this.blocked.delete(address);
    return 0;
  }

  failed(address: string): Promise<number> {
    this.remember(this.suspects, address, Date.now() + this.windowMs);
    return this.link.ask('fail', address).then((result) => this.verdict(address, result));
  }

  succeeded(address: string): number | Promise<number> {
    if (this.suspects.size === 0) return 0;
    const until = this.suspects.get(address);
    if (until === undefined) return 0;
    if (until <= Date.now()) {
      this.suspects.delete(address);
      return 0;
    }
    return this.link.ask('pass', address).then((result) => {
      const waitMs = this.verdict(address, result);
      if (waitMs === 0) this.suspects.delete(address);
      return waitMs;
    });
  }

  /** The primary's verdict as a wait (ms); no answer lets the request go on as it would have in one process. */
  private verdict(address: string, result: CountResult | undefined): number {
    const until = result?.[0] ?? 0;
    if (until === 0) return 0;
    this.remember(this.blocked, address, until);
    return Math.max(1, until - Date.now());
  }

  private remember(map: Map<string, number>, address: string, until: number): void {
    setNewest(map, address, until, this.maxTracked);
  }
}
