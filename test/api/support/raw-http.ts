import { connect, type Socket } from 'node:net';

/** One HTTP response as it came off the wire: status, lower-cased headers, body text. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * A plain TCP connection speaking HTTP/1.1 by hand, for what `fetch` will not send: `..` in a
 * path, a declared length it never delivers, a chunked body written piece by piece.
 */
export class RawConnection {
  private received = Buffer.alloc(0);
  private readonly parsed: RawResponse[] = [];
  private readonly waiters: Array<() => void> = [];
  private ended = false;
  /** Resolves when the server closes the connection (or it is destroyed). */
  readonly closed: Promise<void>;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.parse();
    });
    // A server that stops reading and closes may make our writes fail; the responses still count.
    socket.on('error', () => {});
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.ended = true;
        this.notify();
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
  async response(index = 0, timeoutMs = 10_000): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    while (this.parsed.length <= index) {
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
  async finalResponse(timeoutMs = 10_000): Promise<RawResponse> {
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

  private notify(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  private parse(): void {
    for (;;) {
      const end = this.received.indexOf(HEADER_END);
      if (end === -1) break;
      const [statusLine = '', ...lines] = this.received.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(statusLine.split(' ')[1]);
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const bodyStart = end + HEADER_END.length;
      const length = status < 200 || status === 204 || status === 304 ? 0 : Number(headers['content-length'] ?? 0);
      if (this.received.length < bodyStart + length) break;
      this.parsed.push({ status, headers, body: this.received.subarray(bodyStart, bodyStart + length).toString('utf8') });
      this.received = this.received.subarray(bodyStart + length);
    }
    this.notify();
  }
}

/** Sends one complete raw request and returns the first final response; the connection is then closed. */
export async function rawRequest(port: number, request: string | Buffer): Promise<RawResponse> {
  const connection = await RawConnection.open(port);
  try {
    await connection.write(request);
    return await connection.finalResponse();
  } finally {
    connection.destroy();
  }
}

/** The port of a base URL such as http://127.0.0.1:40123. */
export function portOf(baseUrl: string): number {
  return Number(new URL(baseUrl).port);
}
