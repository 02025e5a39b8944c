/** What goes on the wire, byte for byte, and how the client behaves while sending it. */
export interface RawRequest {
  /** Written in order, each after the previous one drained; writing stops once a response has arrived. */
  parts: ReadonlyArray<Buffer>;
  /** The request is HEAD: the response has headers only, whatever Content-Length says. */
  head?: boolean;
  /** Half-close the connection after the last part (the client says it will send nothing more). */
  endAfterSend?: boolean;
}

export interface RequestShape {
  /** Extra header lines, sent in order after Host; values are sent as they are, bytes included. */
  headers?: ReadonlyArray<readonly [string, string]>;
  body?: string | Buffer;
  /** Content-Length to declare: by default the body's true length (none without a body); false sends none. */
  contentLength?: number | false;
  /** Host header value; false sends none. */
  host?: string | false;
  endAfterSend?: boolean;
}

/**
 * An HTTP/1.1 request as raw bytes. Nothing is normalised: the target is sent as written (`..`,
 * `%2e`, empty segments), and the body and Content-Length may disagree on purpose.
 */
export function rawRequest(method: string, target: string, shape: RequestShape = {}): RawRequest {
  const body = shape.body === undefined ? undefined : Buffer.from(shape.body);
  const lines = [`${method} ${target} HTTP/1.1`];
  if (shape.host !== false) lines.push(`Host: ${shape.host ?? '127.0.0.1'}`);
  for (const [name, value] of shape.headers ?? []) lines.push(`${name}: ${value}`);
  const length = shape.contentLength ?? body?.length;
  if (length !== undefined && length !== false) lines.push(`Content-Length: ${length}`);
  const head = Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1');
  // One write, so the server reads the request as one piece, as a quick client's would arrive.
  return {
    parts: [body ? Buffer.concat([head, body]) : head],
    head: method === 'HEAD',
    ...(shape.endAfterSend ? { endAfterSend: true } : {}),
  };
}

/** A request the test wrote out in full (malformed lines included), sent as UTF-8 in one write. */
export function literalRequest(text: string): RawRequest {
  return { parts: [Buffer.from(text)], head: text.startsWith('HEAD ') };
}

/** A JSON POST or PUT with the usual Content-Type, the body given as exact bytes or text. */
export function jsonRequest(method: string, target: string, body: string | Buffer, shape: RequestShape = {}): RawRequest {
  return rawRequest(method, target, {
    ...shape,
    headers: [['Content-Type', 'application/json'], ...(shape.headers ?? [])],
    body,
  });
}

/** A chunked JSON upload: `chunkBytes`-sized chunks of filler until `totalBytes` are sent, never terminated. */
export function chunkedUpload(target: string, totalBytes: number, chunkBytes: number): RawRequest {
  const head = Buffer.from(
    `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    'latin1',
  );
  const parts: Buffer[] = [head];
  const opening = '{"name":"chunked","email":"c@example.com","pad":"';
  let sent = 0;
  while (sent < totalBytes) {
    const size = Math.min(chunkBytes, totalBytes - sent);
    const payload = Buffer.alloc(size, 'a');
    if (sent === 0) payload.write(opening);
    parts.push(Buffer.from(`${size.toString(16)}\r\n`, 'latin1'), payload, Buffer.from('\r\n', 'latin1'));
    sent += size;
  }
  return { parts };
}
