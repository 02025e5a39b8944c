import { connect } from 'node:net';
import type { ApiResponse } from '../helpers/http.js';

/**
 * Writes bytes to the server as they are and reads the answer until the server closes the
 * connection: for requests fetch will not send (a declared 2 MiB body never sent, a broken header).
 * Every such request here is answered with `Connection: close`, so the close ends the exchange.
 */
export function rawExchange(baseUrl: string, requestText: string): Promise<ApiResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.setTimeout(15_000, () => socket.destroy(new Error('no answer within 15 s')));
    socket.on('connect', () => socket.write(requestText));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
  });
}

function parseResponse(raw: string): ApiResponse {
  const headerEnd = raw.indexOf('\r\n\r\n');
  if (headerEnd === -1) throw new Error(`incomplete response: ${JSON.stringify(raw.slice(0, 200))}`);
  const [statusLine = '', ...lines] = raw.slice(0, headerEnd).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const text = raw.slice(headerEnd + 4);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, headers, text, json };
}
