import type { ServerResponse } from 'node:http';

// Built once: every API response carries the same fixed headers.
const jsonHeaders: ReadonlyArray<readonly [string, string]> = [
  ['Content-Type', 'application/json; charset=utf-8'],
  ['Access-Control-Allow-Origin', '*'],
  ['X-Content-Type-Options', 'nosniff'],
  ['Cache-Control', 'no-store'],
];

export function applyJsonHeaders(res: ServerResponse): void {
  for (const [name, value] of jsonHeaders) res.setHeader(name, value);
}

/** Sends an already serialised JSON body; serialising first means a failure there can still become a clean 500. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: string,
  extraHeaders?: Readonly<Record<string, string>>,
): void {
  applyJsonHeaders(res);
  if (extraHeaders) for (const name in extraHeaders) res.setHeader(name, extraHeaders[name]!);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.writeHead(status);
  res.end(body);
}

export function errorBody(message: string): string {
  return JSON.stringify({ error: message });
}

export function messageBody(message: string): string {
  return JSON.stringify({ message });
}
