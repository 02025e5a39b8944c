import type { Database } from '../../db/database.js';
import { endpointSql } from '../../db/webhook-endpoint-statements.js';
import type { Logger } from '../../log/logger.js';

/**
 * Whether an endpoint is failing, as its delivering process writes it to the database on each
 * change (not on each attempt): since when every attempt has failed (for WEBHOOK_DISABLE_AFTER), and,
 * when an attempt succeeds again after failures, its deliveries waiting for a retry made due at
 * once, so a receiver back from an outage gets what it missed without waiting out the schedule.
 */
export class FailingMark {
  /** Unknown after a take-over: the first attempt writes what it saw. */
  private failing: boolean | undefined;

  constructor(
    private readonly db: Database,
    private readonly endpoint: string,
    private readonly logger: Logger,
  ) {}

  attempted(succeeded: boolean): void {
    const was = this.failing;
    this.failing = !succeeded;
    if (was === this.failing) return;
    void (succeeded ? this.recovered(was === true) : this.write(endpointSql.failing));
  }

  /** Disables the endpoint (an API one) when it has been failing for `seconds`: true when it was. */
  async disableIfFailingFor(seconds: number): Promise<boolean> {
    return (await this.write(endpointSql.disableFailing, [seconds, this.endpoint])).affectedRows === 1;
  }

  /** Another process may deliver from now on. */
  forget(): void {
    this.failing = undefined;
  }

  /** Not failing (any more): when it was, here or at the process that delivered before, its retries are due now. */
  private async recovered(wasFailing: boolean): Promise<void> {
    const { affectedRows } = await this.write(endpointSql.healthy);
    if (wasFailing || affectedRows > 0) await this.write(endpointSql.retryNow);
  }

  private async write(statement: string, values: unknown[] = [this.endpoint]): Promise<{ affectedRows: number }> {
    try {
      return await this.db.write(statement, values);
    } catch (error) {
      // Written again at the next change; until then the auto-disable clock may be a little off.
      this.failing = undefined;
      this.logger.warn('recording whether a webhook endpoint is failing failed', { reason: (error as Error).message });
      return { affectedRows: 0 };
    }
  }
}
