import { connect, type Socket } from 'node:net';
import type { RawRequest } from './raw-request.js';
import { parseResponse, type RawResponse } from './raw-response.js';

export interface RawExchangeOptions {
  host?: string;
  /** How long to wait for a complete response before failing; a bound, not a measurement. */
  timeoutMs?: number;
}

/** One exchange over a fresh TCP connection, so requests that fetch() refuses or rewrites can be sent. */
export function rawExchange(port: number, request: RawRequest, options: RawExchangeOptions = {}): Promise<RawResponse> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: options.host ?? '127.0.0.1' });
    let received = Buffer.alloc(0);
    let settled = false;
    let closedByServer = false;

    const finish = (error?: Error): void => {
      if (settled) return;
      const parsed = parseResponse(received, request.head ?? false, closedByServer);
      if (parsed) {
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        resolve({ ...parsed, closedByServer });
      } else if (error || closedByServer) {
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        const detail = error ? error.message : 'connection closed';
        reject(new Error(`no complete HTTP response (${detail}); received ${JSON.stringify(received.toString('latin1').slice(0, 300))}`));
      }
    };
    const timer = setTimeout(() => finish(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);

    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      // Give a server that closes right after answering the chance to be seen doing so.
      setImmediate(() => finish());
    });
    socket.on('end', () => {
      closedByServer = true;
      finish();
    });
    // A server that closes while the client still sends may reset the connection: keep what arrived.
    socket.on('error', () => {
      closedByServer = true;
      finish();
    });
    socket.on('connect', () => {
      void writeParts(socket, request.parts, () => settled || received.length > 0).then(() => {
        if (request.endAfterSend && !settled && !socket.destroyed) socket.end();
      });
    });
  });
}

async function writeParts(socket: Socket, parts: ReadonlyArray<Buffer>, stop: () => boolean): Promise<void> {
  for (const part of parts) {
    if (stop() || socket.destroyed || !socket.writable) return;
    if (!socket.write(part)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        socket.on('drain', done);
        socket.on('close', done);
      });
    }
  }
}
