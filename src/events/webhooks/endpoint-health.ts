import type { Logger } from '../../log/logger.js';
import type { PostResult } from './post.js';

/**
 * Whether an endpoint's attempts are failing, as the process delivering to it sees them: one
 * warning when an attempt fails after none did (or after one succeeded), one line when an attempt
 * succeeds again; the attempts in between are counted, not logged.
 */
export class EndpointHealth {
  private failingSince: number | undefined;
  private failedAttempts = 0;

  constructor(
    private readonly endpoint: string,
    private readonly logger: Logger,
  ) {}

  attempted(eventId: number, result: PostResult): void {
    if (result.kind === 'failed') {
      this.failedAttempts++;
      if (this.failingSince !== undefined) return;
      this.failingSince = performance.now();
      this.logger.warn('webhook endpoint failing, its deliveries are retried', { endpoint: this.endpoint, eventId, error: result.error });
    } else if (result.kind === 'acknowledged' && this.failingSince !== undefined) {
      this.logger.info('webhook endpoint recovered', {
        endpoint: this.endpoint,
        failedAttempts: this.failedAttempts,
        failingSeconds: Math.round((performance.now() - this.failingSince) / 1000),
      });
      this.forget();
    }
  }

  /** Another process may deliver from now on: what it sees, it says itself. */
  forget(): void {
    this.failingSince = undefined;
    this.failedAttempts = 0;
  }
}
