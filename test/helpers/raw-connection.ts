import { connect, type Socket } from 'node:net';
import { parseResponse, type ParsedResponse } from './raw-response.js';

/**
 * A plain TCP connection speaking HTTP/1.1 by hand, kept open across writes: a declared length it
 * never delivers, a chunked body written piece by piece, interim 1xx responses read one by one.
 */
export class RawConnection {
  private received: Buffer = Buffer.alloc(0);
  private readonly parsed: ParsedResponse[] = [];
  private readonly waiters: Array<() => void> = [];
  private ended = false;
  private unreadable: Error | undefined;
  /** The error code the connection failed with (a reset, a write after the server closed), if any. */
  failure: string | undefined;
  /** Resolves when the server closes the connection (or it is destroyed). */
  readonly closed: Promise<void>;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.parse();
    });
    // A server that stops reading and closes may make our writes fail; the responses still count.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      this.failure ??= error.code ?? error.message;
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.ended = true;
        this.parse();
        resolve();
      }),
    );
  }

  static open(port: number, host = '127.0.0.1'): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, host);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RawConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Writes and waits until the bytes are handed to the kernel; false when the server already went away. */
  write(data: string | Buffer): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.socket.destroyed || !this.socket.writable) return resolve(false);
      this.socket.write(data, (error) => resolve(!error));
    });
  }

  /** The n-th response (interim 1xx ones included), waiting for it to arrive complete. */
  async response(index = 0, timeoutMs = 10_000): Promise<ParsedResponse> {
    const deadline = Date.now() + timeoutMs;
    while (this.parsed.length <= index) {
      if (this.unreadable) throw this.unreadable;
      if (this.ended) throw new Error(`connection closed after ${this.parsed.length} response(s)`);
      if (Date.now() > deadline) throw new Error('timed out waiting for a response');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.parsed[index]!;
  }

  /** The first final (non-1xx) response. */
  async finalResponse(timeoutMs = 10_000): Promise<ParsedResponse> {
    for (let i = 0; ; i++) {
      const response = await this.response(i, timeoutMs);
      if (response.status >= 200) return response;
    }
  }

  /** Resolves true when the server closes the connection within the time, false otherwise. */
  closedWithin(timeoutMs: number): Promise<boolean> {
    return Promise.race([
      this.closed.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref()),
    ]);
  }

  destroy(): void {
    this.socket.destroy();
  }

  private parse(): void {
    try {
      for (;;) {
        const response = parseResponse(this.received, false, this.ended);
        if (!response) break;
        this.parsed.push(response);
        this.received = response.trailing;
      }
    } catch (error) {
      this.unreadable = error as Error;
    }
    for (const wake of this.waiters.splice(0)) wake();
  }
}
