import type { EventType } from '../event-log.js';
import type { AddressGuard } from './address-guard.js';

/** The keys that sign an attempt: the current one, and the one it replaced until its grace ends. */
export interface SigningKeys {
  current: Buffer;
  previous?: { key: Buffer; untilMs: number };
}

/** What a delivery row of the API's endpoints tells a delivering process (endpointSql.delivering). */
export interface TargetSettings {
  url: string;
  eventTypes: readonly EventType[] | null;
  keys: SigningKeys;
}

/**
 * Where and how one endpoint's deliveries go, as its delivering process knows it now: the URL,
 * the types it takes and the keys that sign. An endpoint made through the API is changed in place
 * as the directory reads it again (within a second or two of a change); one of WEBHOOK_URLS never
 * changes. `guard` is the address filter (API endpoints only: the operator's are trusted).
 */
export class DeliveryTarget {
  private settings: TargetSettings;

  constructor(
    /** The endpoint's key in webhook_endpoints and webhook_deliveries. */
    readonly key: string,
    settings: TargetSettings,
    readonly guard: AddressGuard | undefined,
    /** The API's endpoints (`source: "api"`): settings re-read after a take-over, auto-disabled when failing. */
    readonly managed: boolean,
  ) {
    this.settings = settings;
  }

  get url(): string {
    return this.settings.url;
  }

  update(settings: TargetSettings): void {
    this.settings = settings;
  }

  takes(type: EventType): boolean {
    return this.settings.eventTypes === null || this.settings.eventTypes.includes(type);
  }

  /** The keys that sign an attempt made now. */
  keys(nowMs = performance.now()): Buffer[] {
    const { current, previous } = this.settings.keys;
    return previous !== undefined && nowMs < previous.untilMs ? [current, previous.key] : [current];
  }
}
