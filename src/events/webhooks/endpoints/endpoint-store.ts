import type { ResultSetHeader } from 'mysql2';
import type { Database } from '../../../db/database.js';
import { endpointSql } from '../../../db/webhook-endpoint-statements.js';
import { webhookSql } from '../../../db/webhook-statements.js';
import { endpointKey } from '../endpoint-key.js';
import { newEndpointKey, recordOf, type EndpointRecord, type EndpointSettings, type SubscriptionRow } from './endpoint-record.js';

/** Rows of a removed endpoint deleted per statement. */
const REMOVE_CHUNK = 5000;

/** The key rotated: the new key, and how long the one it replaces keeps signing. */
export interface Rotation {
  key: string;
  graceSeconds: number;
}

/**
 * The endpoints' settings (webhook_subscriptions) as the API and the operator's tools change them.
 * Only endpoints made through the API change here; those of WEBHOOK_URLS are listed, nothing more.
 */
export class EndpointStore {
  constructor(private readonly db: Database) {}

  /** A new endpoint, with its delivery mark at the last event recorded: it gets the events recorded from now on. */
  async create(settings: EndpointSettings, secret: string): Promise<EndpointRecord> {
    const key = newEndpointKey();
    await this.db.transaction(async (run) => {
      await run(endpointSql.create, [key, settings.url, settings.description, typesColumn(settings), settings.disabled ? 1 : 0, JSON.stringify(settings.metadata), secret]);
      await run(endpointSql.addMark, [key, settings.url]);
    });
    return (await this.byEndpoint(key))!;
  }

  /** WEBHOOK_URLS's endpoints listed beside the API's (a row each, made by the first process that starts with it). */
  async addFromEnvironment(urls: readonly string[]): Promise<void> {
    for (const url of urls) await this.db.write(endpointSql.addFromEnvironment, [endpointKey(url), url]);
  }

  async all(): Promise<EndpointRecord[]> {
    return (await this.db.read<SubscriptionRow[]>(endpointSql.all, [])).map(recordOf);
  }

  async get(id: number): Promise<EndpointRecord | undefined> {
    const [row] = await this.db.read<SubscriptionRow[]>(endpointSql.byId, [id]);
    return row && recordOf(row);
  }

  async byEndpoint(key: string): Promise<EndpointRecord | undefined> {
    const [row] = await this.db.read<SubscriptionRow[]>(endpointSql.byEndpoint, [key]);
    return row && recordOf(row);
  }

  /**
   * The settings replaced (a merged PATCH), when the record is still at `version` (if given).
   * False when it was changed meanwhile. An endpoint enabled again starts after the last event
   * recorded: what it missed while disabled is for recover.
   */
  async update(before: EndpointRecord, settings: EndpointSettings, version?: number): Promise<boolean> {
    const disabled = settings.disabled ? 1 : 0;
    return this.db.transaction(async (run) => {
      const values = [settings.url, settings.description, typesColumn(settings), JSON.stringify(settings.metadata), disabled, disabled, disabled, before.id, version ?? null, version ?? null];
      const { affectedRows } = await run<ResultSetHeader>(endpointSql.update, values);
      if (affectedRows !== 1) return false;
      if (before.disabled && !settings.disabled) await run(endpointSql.skipToLast, [before.endpoint]);
      return true;
    });
  }

  /** The endpoint removed from the list: from now on no process takes up its delivery (purge() removes the rest, once none delivers). */
  async forget(record: EndpointRecord): Promise<void> {
    await this.db.write(endpointSql.remove, [record.endpoint]);
  }

  /** What a removed endpoint leaves: its mark, deliveries and attempts. */
  async purge(record: EndpointRecord): Promise<void> {
    await this.db.write(endpointSql.removeMark, [record.endpoint]);
    for (const statement of [endpointSql.removeDeliveries, endpointSql.removeAttempts]) {
      while ((await this.db.write(statement, [record.endpoint, REMOVE_CHUNK])).affectedRows === REMOVE_CHUNK);
    }
  }

  async secret(id: number): Promise<string | undefined> {
    const [row] = await this.db.read<Array<{ secret: string | null }>>(endpointSql.secret, [id]);
    return row?.secret ?? undefined;
  }

  async rotate(id: number, rotation: Rotation): Promise<boolean> {
    const { affectedRows } = await this.db.write(endpointSql.rotate, [rotation.graceSeconds, rotation.graceSeconds, rotation.key, id]);
    return affectedRows === 1;
  }

  /** Disables or enables an endpoint by the operator's hand (npm run webhooks). False when there is no such API endpoint. */
  async setDisabled(record: EndpointRecord, disabled: boolean): Promise<boolean> {
    return this.update(record, { url: record.url, description: record.description, eventTypes: record.eventTypes, metadata: record.metadata, disabled });
  }

  /** Whether a process delivers to the endpoint now (holds its lease). */
  async delivered(record: EndpointRecord): Promise<boolean> {
    return (await this.db.read<unknown[]>(webhookSql.endpointDelivered, [record.endpoint])).length > 0;
  }
}

function typesColumn(settings: EndpointSettings): string | null {
  return settings.eventTypes === null ? null : JSON.stringify(settings.eventTypes);
}
