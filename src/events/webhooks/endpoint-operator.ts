import type { Database } from '../../db/database.js';
import { endpointSql } from '../../db/webhook-endpoint-statements.js';
import { isNoSuchTable } from '../../db/mysql-errors.js';
import { endpointCounts, type EndpointCount } from './endpoint-counts.js';
import { newSecret, type EndpointRecord } from './endpoints/endpoint-record.js';
import { EndpointStore } from './endpoints/endpoint-store.js';
import { WebhookToolError } from './operator.js';
import { shownUrl } from './shown-url.js';

/** An endpoint as `npm run webhooks -- endpoints` lists it. */
export interface ListedEndpoint extends EndpointCount {
  disabledReason: string | null;
}

/**
 * The operator's hold on endpoints without a token (`npm run webhooks`): every endpoint listed with
 * its state and counts, an API endpoint disabled, enabled or given a new key, and pending
 * deliveries sent now instead of at their next scheduled attempt. A running service follows a
 * change within a second or two, as it follows one made through the API.
 */
export class EndpointOperator {
  private readonly store: EndpointStore;

  constructor(private readonly db: Database) {
    this.store = new EndpointStore(db);
  }

  async endpoints(): Promise<ListedEndpoint[]> {
    const [counts, records] = await this.tables(() => Promise.all([endpointCounts(this.db), this.store.all()]));
    const reasons = new Map(records.map((record) => [record.endpoint, record.disabledReason]));
    return counts.map((count) => ({ ...count, disabledReason: reasons.get(count.endpoint) ?? null }));
  }

  /** Disables or enables an API endpoint; false when it already was so. */
  async setDisabled(given: string, disabled: boolean): Promise<{ record: EndpointRecord; changed: boolean }> {
    const record = await this.apiEndpoint(given, disabled ? 'disable' : 'enable');
    if (record.disabled === disabled) return { record, changed: false };
    if (!(await this.store.setDisabled(record, disabled))) throw new WebhookToolError(`endpoint ${record.id} changed meanwhile: try again`);
    return { record, changed: true };
  }

  /** A new key for an API endpoint; the old one signs for `graceSeconds` more. */
  async rotate(given: string, graceSeconds: number): Promise<{ record: EndpointRecord; key: string }> {
    const record = await this.apiEndpoint(given, 'rotate');
    const key = newSecret();
    await this.store.rotate(record.id, { key, graceSeconds });
    return { record, key };
  }

  /** The pending deliveries waiting for a retry due now, to one endpoint or every one. Resolves with how many, by endpoint URL. */
  async retry(given: string | undefined): Promise<Array<{ url: string; count: number }>> {
    const all = await this.tables(() => endpointCounts(this.db));
    const targets = given === undefined ? all : [named(all, given)];
    const retried = [];
    for (const target of targets) {
      const { affectedRows } = await this.db.write(endpointSql.retryNow, [target.endpoint]);
      retried.push({ url: shownUrl(target.url), count: affectedRows });
    }
    return retried;
  }

  private async apiEndpoint(given: string, command: string): Promise<EndpointRecord> {
    const endpoint = named(await this.tables(() => endpointCounts(this.db)), given);
    const record = await this.store.byEndpoint(endpoint.endpoint);
    if (record === undefined || record.source !== 'api') {
      throw new WebhookToolError(`${shownUrl(endpoint.url)} is set by WEBHOOK_URLS: to ${command} it, change WEBHOOK_URLS (or WEBHOOK_SECRET) and restart`);
    }
    return record;
  }

  private async tables<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isNoSuchTable(error)) throw new WebhookToolError('there are no webhook endpoint tables in this database: the service never ran with EVENTS=on');
      throw error;
    }
  }
}

/** The endpoint named by its id, its URL, or its URL as listed (without its query) when only one matches. */
function named(all: readonly EndpointCount[], given: string): EndpointCount {
  const byId = /^[1-9]\d{0,15}$/.test(given) ? all.find((one) => one.id === Number(given)) : undefined;
  if (byId) return byId;
  const exact = all.filter((one) => one.url === given);
  const shown = exact.length > 0 ? exact : all.filter((one) => shownUrl(one.url) === given);
  if (shown.length === 1) return shown[0]!;
  if (shown.length > 1) throw new WebhookToolError(`${shown.length} endpoints are ${given}: name one by its id (npm run webhooks -- endpoints lists them)`);
  throw new WebhookToolError(`no webhook endpoint ${given} is known (npm run webhooks -- endpoints lists them)`);
}
