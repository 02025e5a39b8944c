import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { JWK } from 'jose';

/** What the JWKS server answers: the key set, a body that is not JSON, JSON that is no key set, a 500, or nothing at all. */
export type JwksAnswer = 'jwks' | 'not-json' | 'not-a-jwks' | 'status-500' | 'no-answer';

/** An identity provider's JWKS endpoint on 127.0.0.1, port 0, that counts the fetches it answers. */
export interface JwksServer {
  readonly url: string;
  /** Requests received so far. */
  readonly fetches: number;
  /** The keys served from now on (a rotation). */
  serve(keys: JWK[]): void;
  answer(mode: JwksAnswer): void;
  /** Stops listening: fetches fail with ECONNREFUSED. */
  down(): Promise<void>;
}

/** Starts the server with the keys given; it is stopped when the test ends. */
export async function jwksServer(t: TestContext, keys: JWK[]): Promise<JwksServer> {
  let served = keys;
  let mode: JwksAnswer = 'jwks';
  let fetches = 0;
  const server: Server = createServer((_request, response) => {
    fetches++;
    if (mode === 'no-answer') return;
    if (mode === 'status-500') return void response.writeHead(500).end('{"error":"down"}');
    response.setHeader('content-type', 'application/json');
    if (mode === 'not-json') return void response.end('<html>maintenance</html>');
    if (mode === 'not-a-jwks') return void response.end('{"keys":"none"}');
    response.end(JSON.stringify({ keys: served }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  const down = (): Promise<void> =>
    new Promise((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  t.after(down);
  return {
    url,
    get fetches() {
      return fetches;
    },
    serve: (next) => void (served = next),
    answer: (next) => void (mode = next),
    down,
  };
}
