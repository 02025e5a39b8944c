import { Agent, request as httpRequest } from 'node:http';
import { pollUntil } from './poll-until.js';
import { connectionOwner } from './service-workers.js';

/** Which worker process of a WORKERS=N child service (see child-service.ts) answers which connection. */

export interface WorkerAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

/** One keep-alive connection of its own to a WORKERS=N service: every request on it reaches the same worker. */
export class WorkerConnection {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });

  constructor(private readonly port: number) {}

  /** One request on this connection; `json`, when given, is sent as its body. */
  send(method: string, path: string, headers: Record<string, string> = {}, json?: unknown): Promise<WorkerAnswer> {
    const body = json === undefined ? undefined : JSON.stringify(json);
    const sent = body === undefined ? headers : { 'content-type': 'application/json', ...headers };
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: this.port, method, path, agent: this.agent, headers: sent }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /** The pid of the worker holding this connection; call it once a request has opened it. */
  owner(workers: readonly number[]): Promise<number> {
    return pollUntil("the connection's worker", () => {
      const port = Object.values(this.agent.freeSockets).flat()[0]?.localPort;
      return port === undefined ? undefined : connectionOwner(workers, this.port, port);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Fresh connections until one is held by each worker (the primary hands them out in turn), in the order of `workers`. */
export async function connectionPerWorker(port: number, workers: readonly number[]): Promise<WorkerConnection[]> {
  const byWorker = new Map<number, WorkerConnection>();
  for (let i = 0; byWorker.size < workers.length; i++) {
    if (i >= 10 * workers.length) throw new Error('fresh connections did not reach every worker');
    const connection = new WorkerConnection(port);
    await connection.send('GET', '/healthz');
    const owner = await connection.owner(workers);
    if (byWorker.has(owner)) connection.close();
    else byWorker.set(owner, connection);
  }
  return workers.map((pid) => byWorker.get(pid)!);
}
