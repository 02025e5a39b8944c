import { Agent, request } from 'node:http';

/** One answer and how long it took, from sending the request to the last byte of the body. */
export interface TimedAnswer {
  status: number;
  ms: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Connections kept open between requests: a measured request never includes a TCP handshake. */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** Long enough for any answer the benchmark waits for; past it the request fails as a timeout. */
const TIMEOUT_MS = 30_000;

/**
 * Sends one request to the service and reads its whole answer. A connection error or no answer
 * within TIMEOUT_MS rejects; any status resolves, for the caller to judge.
 */
export function timedRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<TimedAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const sent = request(`${baseUrl}${path}`, { method, agent, headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/json' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          ms: performance.now() - started,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    sent.setTimeout(TIMEOUT_MS, () => sent.destroy(new Error('timeout')));
    sent.on('error', reject);
    sent.end(body);
  });
}

/** Closes the kept connections, so a finished benchmark does not wait for them to time out. */
export function closeTimedConnections(): void {
  agent.destroy();
}
