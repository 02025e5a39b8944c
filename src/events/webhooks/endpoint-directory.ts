import type { Database } from '../../db/database.js';
import { endpointSql } from '../../db/webhook-endpoint-statements.js';
import type { Logger } from '../../log/logger.js';
import type { EventType } from '../event-log.js';
import type { AddressGuard } from './address-guard.js';
import { DeliveryTarget, type TargetSettings } from './delivery-target.js';
import type { EndpointWorker } from './endpoint-worker.js';
import { secretKey } from './endpoints/endpoint-record.js';

/** How often every process reads the API's endpoints again: a change is in effect everywhere within about this long. */
const REFRESH_MS = 1000;

interface DeliveringRow {
  endpoint: string;
  url: string;
  event_types: string | null;
  secret: string;
  previous_secret: string | null;
  previous_left_ms: number | string | null;
}

/** Makes the worker of an API endpoint; `stillDelivering` reads whether it is (see EndpointOptions). */
export type WorkerFactory = (target: DeliveryTarget, stillDelivering: () => Promise<boolean>) => EndpointWorker;

/**
 * The endpoints made through the API, as this process delivers to them: read every REFRESH_MS (one
 * statement, whatever their number), a worker started for each new enabled one, stopped for one
 * disabled or removed, and the settings of the others (URL, types, keys) changed in place. A change
 * made here is read at once (refresh()), so this process is the first to follow it.
 */
export class EndpointDirectory {
  private readonly workers = new Map<string, { target: DeliveryTarget; worker: EndpointWorker }>();
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;
  private failing = false;

  constructor(
    private readonly db: Database,
    private readonly guard: AddressGuard,
    private readonly makeWorker: WorkerFactory,
    private readonly logger: Logger,
  ) {}

  start(): void {
    void this.refresh();
  }

  /** How many API endpoints this process delivers to (or waits to). */
  get size(): number {
    return this.workers.size;
  }

  /**
   * Reads the endpoints now; resolves once this process follows what it read (a worker stopped has
   * stopped). Reads run one after another, each after those asked before it.
   */
  refresh(): Promise<void> {
    const read = this.chain.then(() => this.readAll());
    this.chain = read.catch(() => {}).finally(() => this.schedule());
    return read;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.chain;
    await Promise.all([...this.workers.values()].map(({ worker }) => worker.stop()));
    this.workers.clear();
  }

  private schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  private async readAll(): Promise<void> {
    if (this.stopped) return;
    let rows: DeliveringRow[];
    try {
      rows = await this.db.read<DeliveringRow[]>(endpointSql.delivering, []);
      if (this.failing) this.logger.info('reading the webhook endpoints works again');
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.logger.warn('reading the webhook endpoints failed, deliveries go on as last read', { reason: (error as Error).message });
      this.failing = true;
      return;
    }
    if (this.stopped) return;
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.endpoint);
      const settings = settingsOf(row);
      const known = this.workers.get(row.endpoint);
      if (known) known.target.update(settings);
      else this.add(row.endpoint, settings);
    }
    const gone = [...this.workers.entries()].filter(([key]) => !seen.has(key));
    for (const [key] of gone) this.workers.delete(key);
    await Promise.all(gone.map(([, { worker }]) => worker.stop()));
  }

  private add(key: string, settings: TargetSettings): void {
    const target = new DeliveryTarget(key, settings, this.guard, true);
    const worker = this.makeWorker(target, async () => (await this.db.read<unknown[]>(endpointSql.stillDelivering, [key])).length > 0);
    this.workers.set(key, { target, worker });
    worker.start();
  }
}

function settingsOf(row: DeliveringRow): TargetSettings {
  const left = row.previous_left_ms === null ? 0 : Number(row.previous_left_ms);
  return {
    url: row.url,
    eventTypes: row.event_types === null ? null : (JSON.parse(row.event_types) as EventType[]),
    keys: {
      current: secretKey(row.secret),
      ...(row.previous_secret !== null && left > 0 ? { previous: { key: secretKey(row.previous_secret), untilMs: performance.now() + left } } : {}),
    },
  };
}
