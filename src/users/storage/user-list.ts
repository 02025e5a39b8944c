import { Batcher, type Pending } from '../../db/batcher.js';
import type { Database } from '../../db/database.js';
import type { Deadline } from '../../db/deadline.js';
import type { OpenedRows } from '../../db/row-stream.js';
import type { StopSignal } from '../../db/stop-signal.js';
import type { PoolTuning } from '../../db/pool-tuning.js';
import type { ListFilter, ListPage, ListRequest } from '../rules/list-query.js';
import { LIST_CHUNK_BYTES, UserArrayBuilder, type ListRow } from './list-layout.js';
import { countStatement, findStatement, listStatements, type Statement } from './list-statements.js';
import { counted, countedStream, sized } from './observed-operations.js';
import { readUserPage, type UserPage } from './page-read.js';
import type { StoreObserver } from './store-observer.js';
import { scopeOf } from '../../tracing/span-scope.js';
import type { SpanContext } from '../../tracing/trace-context.js';

/**
 * Either the shared list, or the go-ahead to stream it alone; a streaming caller must call
 * `release` once its list ends, fails, or has proved too large to share (more than one chunk).
 */
export type ListTurn = { body: Buffer } | { release: () => void; deadline: Deadline };

/** A list being streamed: its first chunk, and the chunks still to come unless the first was all of it. */
export type StreamedList = OpenedRows;

const everyUser: Statement = { sql: listStatements.all, values: [] };

/** The most listings one read serves. */
const MAX_BATCH = 64;

/**
 * The users list as one JSON array: the whole of it, read once for concurrent listings while it
 * is small and streamed to each alone when it is not, or a page of it.
 */
export class UserList {
  private readonly lists: Batcher<void, ListTurn>;
  private readonly sharedListLimit: number;

  constructor(
    private readonly db: Database,
    tuning: PoolTuning,
    private readonly observer?: StoreObserver,
  ) {
    const inFlight = tuning.batchesInFlight;
    this.lists = new Batcher(sized(observer, 'list', (batch) => this.listBatch(batch)), inFlight, MAX_BATCH, tuning.queueLimit);
    this.sharedListLimit = tuning.sharedListLimitBytes;
  }

  /**
   * A listing's turn: the whole list as one JSON array, read once for every listing that arrived
   * together, when it is small; or the go-ahead to stream it alone (see ListTurn).
   */
  turn(span?: SpanContext): Promise<ListTurn> {
    // A shared list is complete here; a streamed one is counted when its read ends.
    return counted(this.observer, 'list', this.lists.submit(undefined, span), (given) => 'body' in given);
  }

  /**
   * Every user in id order as one JSON array, in chunks: the table is never held in memory. A
   * failure before the first chunk rejects with a StorageError; `clientGone` stops the read.
   */
  stream(deadline: Deadline, clientGone: StopSignal): Promise<StreamedList> {
    return countedStream(this.observer, 'list', this.read(LIST_CHUNK_BYTES, deadline, clientGone), clientGone);
  }

  /** A page of the users a request asks for (see readUserPage). */
  page(request: ListRequest & { page: ListPage }, span?: SpanContext): Promise<UserPage> {
    return counted(this.observer, 'list', readUserPage(this.db, request, this.db.deadlineSince(performance.now(), scopeOf([span]))));
  }

  /** Every user a request asks for, in its order, streamed alone as `stream` streams the whole list. */
  find(request: ListRequest, clientGone: StopSignal, span?: SpanContext): Promise<StreamedList> {
    const found = this.read(LIST_CHUNK_BYTES, this.db.deadlineSince(performance.now(), scopeOf([span])), clientGone, findStatement(request));
    return countedStream(this.observer, 'list', found, clientGone);
  }

  /** How many users match the filter. */
  async count(filter: ListFilter, span?: SpanContext): Promise<number> {
    const { sql, values } = countStatement(filter);
    const [row] = await this.db.read<Array<{ total: number | string }>>(sql, values, this.db.deadlineSince(performance.now(), scopeOf([span])));
    return Number(row!.total);
  }

  /**
   * One read serves the whole batch: it starts after every listing in it arrived, so each sees every
   * write acknowledged before it asked. Past the limit the read is dropped and each streams alone,
   * so a large table is never buffered and no slow reader holds back another.
   */
  private async listBatch(batch: ReadonlyArray<Pending<void, ListTurn>>): Promise<void> {
    // On the budget of the oldest listing, counted from when it was asked for.
    const deadline = this.db.deadlineSince(batch[0]!.since, scopeOf(batch.map((pending) => pending.span)));
    if (batch.length === 1) {
      // Alone: it streams, holding this batch's place until its list proves large or ends, so
      // listings that arrive meanwhile gather into the next batch.
      await new Promise<void>((release) => batch[0]!.resolve({ release, deadline }));
      return;
    }
    const body = await this.readUpTo(this.sharedListLimit, deadline);
    for (const pending of batch) {
      // Too large to share: each streams its own, with the budget it has left.
      pending.resolve(body === undefined ? { release: () => {}, deadline: this.db.deadlineSince(pending.since, scopeOf([pending.span])) } : { body });
    }
  }

  /** The whole list, or undefined as soon as it proves larger than `limitBytes`. */
  private async readUpTo(limitBytes: number, deadline: Deadline): Promise<Buffer | undefined> {
    const list = await this.read(limitBytes, deadline);
    if (!list.rest) return list.first;
    list.rest.destroy();
    return undefined;
  }

  /**
   * The list in chunks of about `chunkBytes`, once the first is full or the list ended; a failure
   * before then rejects with a StorageError. Destroying the rest (or `stop`) ends the read.
   */
  private read(chunkBytes: number, deadline: Deadline, stop?: StopSignal, statement: Statement = everyUser): Promise<StreamedList> {
    const array = new UserArrayBuilder(chunkBytes);
    const encoder = { add: (row: ListRow) => array.add(row.json), end: () => array.end(), reuse: (chunk: Buffer) => array.reuse(chunk) };
    return this.db.stream(statement.sql, statement.values, encoder, deadline, stop);
  }
}
