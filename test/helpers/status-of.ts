import { request as httpRequest, type Agent } from 'node:http';

/** One GET on the agent's (keep-alive) connections; resolves with its status, 0 on a transport error or after 10 s. Never rejects. */
export function statusOf(agent: Agent, url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { agent, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}
