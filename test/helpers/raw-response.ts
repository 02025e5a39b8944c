/** One HTTP response read off a raw connection. */
export interface ParsedResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  /** Bytes the server sent after this response (a second response, for instance). */
  trailing: Buffer;
}

export interface RawResponse extends ParsedResponse {
  /** The server closed the connection (now or after answering) before the client did. */
  closedByServer: boolean;
}

/**
 * The first complete response in `data`, or undefined while more bytes are needed. `head`: the
 * request was HEAD, so there is no body whatever Content-Length says; `closed`: no more bytes will
 * come, so a body without length or chunking ends here.
 */
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
