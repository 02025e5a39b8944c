import { Transform, type TransformCallback } from 'node:stream';
import { LIST_CHUNK_BYTES, UserArrayBuilder } from './list-layout.js';

/** A row of listStatements.all: one user in the layout list-layout.ts reads. */
export interface ListRow {
  json: Buffer;
}

/** The users list as one JSON array: rows in, chunks of about `chunkBytes` out (see UserArrayBuilder). */
export class UserListChunks extends Transform {
  private readonly array: UserArrayBuilder;
  private flushed = false;

  constructor(chunkBytes = LIST_CHUNK_BYTES) {
    // No rows are taken while a finished chunk waits for its reader: memory stays at a chunk or two
    // per listing, and a first chunk read together with the end is the whole list.
    super({ writableObjectMode: true, readableHighWaterMark: 0 });
    this.array = new UserArrayBuilder(chunkBytes);
  }

  /** True once the last chunk was pushed: what is buffered is the rest of the list. */
  get complete(): boolean {
    return this.flushed;
  }

  override _transform(row: ListRow, _encoding: BufferEncoding, done: TransformCallback): void {
    let full: Buffer | undefined;
    try {
      full = this.array.add(row.json);
    } catch (error) {
      return done(error as Error);
    }
    if (full) this.push(full);
    done();
  }

  override _flush(done: TransformCallback): void {
    this.flushed = true;
    done(null, this.array.end());
  }
}
