import { connect, type Socket } from 'node:net';

/** What goes on the wire, byte for byte, and how the client behaves while sending it. */
export interface RawRequest {
  /** Written in order, each after the previous one drained; writing stops once a response has arrived. */
  parts: ReadonlyArray<Buffer>;
  /** The request is HEAD: the response has headers only, whatever Content-Length says. */
  head?: boolean;
  /** Half-close the connection after the last part (the client says it will send nothing more). */
  endAfterSend?: boolean;
}

export interface RawResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  /** Bytes the server sent after this first response (a second response, for instance). */
  trailing: Buffer;
  /** The server closed the connection (now or after answering) before the client did. */
  closedByServer: boolean;
}

export interface RawHttpOptions {
  host?: string;
  /** How long to wait for a complete response before failing; a bound, not a measurement. */
  timeoutMs?: number;
}

/** One exchange over a fresh TCP connection, so requests that fetch() refuses or rewrites can be sent. */
export function rawExchange(port: number, request: RawRequest, options: RawHttpOptions = {}): Promise<RawResponse> {
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
    const timer = setTimeout(() => finish(new Error(`timed out after ${options.timeoutMs ?? 10_000} ms`)), options.timeoutMs ?? 10_000);

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

type ParsedResponse = Omit<RawResponse, 'closedByServer'>;

/** The first complete response in `data`, or undefined while more bytes are needed. */
export function parseResponse(data: Buffer, head: boolean, closed: boolean): ParsedResponse | undefined {
  const headerEnd = data.indexOf('\r\n\r\n');
  if (headerEnd === -1) return undefined;
  const lines = data.subarray(0, headerEnd).toString('latin1').split('\r\n');
  const statusMatch = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  if (!statusMatch) throw new Error(`not an HTTP response: ${JSON.stringify(lines[0])}`);
  const status = Number(statusMatch[1]);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  const rest = data.subarray(headerEnd + 4);
  let body: Buffer;
  let trailing: Buffer;
  if (head || status === 204 || status === 304 || (status >= 100 && status < 200)) {
    body = Buffer.alloc(0);
    trailing = rest;
  } else if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (rest.length < length) return undefined;
    body = rest.subarray(0, length);
    trailing = rest.subarray(length);
  } else if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
    const decoded = decodeChunked(rest);
    if (!decoded) return undefined;
    ({ body, trailing } = decoded);
  } else {
    if (!closed) return undefined;
    body = rest;
    trailing = Buffer.alloc(0);
  }
  const text = body.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, headers, body, text, json, trailing };
}

function decodeChunked(data: Buffer): { body: Buffer; trailing: Buffer } | undefined {
  const chunks: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd === -1) return undefined;
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    const start = lineEnd + 2;
    if (size === 0) {
      const end = data.indexOf('\r\n\r\n', lineEnd);
      if (end === -1) return undefined;
      return { body: Buffer.concat(chunks), trailing: data.subarray(end + 4) };
    }
    if (data.length < start + size + 2) return undefined;
    chunks.push(data.subarray(start, start + size));
    offset = start + size + 2;
  }
}
