import { Batcher, type Pending } from '../../db/batcher.js';
import type { Database } from '../../db/database.js';
import type { PoolTuning } from '../../db/pool-tuning.js';
import { StorageError } from '../../errors/storage-error.js';
import { UserArrayBuilder, type ListRow } from './list-layout.js';
import { EMAIL_LOOKUP_ROWS, emailLookupLimit, emailLookups } from './list-statements.js';
import { counted } from './observed-operations.js';
import type { StoreObserver } from './store-observer.js';
import { scopeOf } from '../../tracing/span-scope.js';
import type { SpanContext } from '../../tracing/trace-context.js';

/** The most lookups one statement serves. */
const MAX_BATCH = 64;

type LookupRow = ListRow & { n: Buffer; id: Buffer };

/**
 * `GET /api/users?email=…` answered as the reads by id are: concurrent lookups share one statement
 * (one index read each, tagged with its lookup), so each costs a fraction of a round trip. A lookup
 * whose email more than EMAIL_LOOKUP_ROWS users share resolves to undefined: too many to hold, it
 * is streamed instead. So does every lookup of a batch whose statement hit its row limit, since
 * any of them may have been cut short there.
 */
export class EmailLookups {
  private readonly lookups: Batcher<string, Buffer | undefined>;

  constructor(
    private readonly db: Database,
    tuning: PoolTuning,
    private readonly observer?: StoreObserver,
  ) {
    this.lookups = new Batcher((batch) => this.lookupBatch(batch), tuning.batchesInFlight, MAX_BATCH, tuning.queueLimit);
  }

  /** The users with the email, by id, as a JSON array; undefined when too many share it. */
  find(email: string, span?: SpanContext): Promise<Buffer | undefined> {
    return counted(this.observer, 'list', this.lookups.submit(email, span), (body) => body !== undefined);
  }

  private async lookupBatch(batch: ReadonlyArray<Pending<string, Buffer | undefined>>): Promise<void> {
    const emails = [...new Set(batch.map((pending) => pending.item))];
    const rows = await this.db.readUndecoded<LookupRow[]>(emailLookups(emails.length), emails, this.db.deadlineSince(batch[0]!.since, scopeOf(batch.map((pending) => pending.span))));
    const found = emails.map((): LookupRow[] => []);
    for (const row of rows) found[Number(row.n.toString('latin1'))]!.push(row);
    const cut = rows.length >= emailLookupLimit(emails.length);
    const bodies = new Map<string, Buffer | undefined>();
    try {
      emails.forEach((email, i) => bodies.set(email, cut || found[i]!.length > EMAIL_LOOKUP_ROWS ? undefined : arrayOf(found[i]!)));
    } catch (error) {
      throw new StorageError(error);
    }
    for (const pending of batch) pending.resolve(bodies.get(pending.item));
  }
}

/** The rows as one JSON array, by id: the email index holds each email's ids in order, but a join promises no order. */
function arrayOf(rows: LookupRow[]): Buffer {
  if (rows.length > 1) rows.sort((a, b) => Number(a.id.toString('latin1')) - Number(b.id.toString('latin1')));
  const array = new UserArrayBuilder();
  const parts: Buffer[] = [];
  for (const row of rows) {
    const full = array.add(row.json);
    if (full) parts.push(full);
  }
  parts.push(array.end());
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}
