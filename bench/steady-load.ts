import { httpOperation } from './http-load.js';
import { timedRequest } from './timed-request.js';
import type { Scenario } from './workload.js';

/** One answer of a steady load: when its request was sent (ms since the load started), how long it took, and whether it was the expected one. */
export interface Answer {
  sentAtMs: number;
  ms: number;
  method: string;
  path: string;
  /** The status, or what went wrong instead ("timeout", a connection error). */
  outcome: string;
  ok: boolean;
}

export interface SteadyLoad {
  /** performance.now() when the load started: every sentAtMs counts from it. */
  startedAt: number;
  /** Stops sending and resolves with every answer once the requests in flight are answered. */
  stop(): Promise<Answer[]>;
}

/**
 * The scenario's requests (httpOperation) sent at a steady pace, `perSecond` in all over
 * `connections` connections, each connection waiting for its answer before the next one (a late
 * answer delays that connection's next request, never piles more up). Every answer is recorded.
 */
export function startSteadyLoad(baseUrl: string, scenario: Scenario, password: string, connections: number, perSecond: number): SteadyLoad {
  const startedAt = performance.now();
  const answers: Answer[] = [];
  const intervalMs = (1000 * connections) / perSecond;
  let next = 0;
  let stopped = false;

  async function connection(offsetMs: number): Promise<void> {
    let due = startedAt + offsetMs;
    while (!stopped) {
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (stopped) return;
      const { method, path, body, expectedStatus } = httpOperation(scenario, next++, password);
      const sent = performance.now();
      const record = (outcome: string, ok: boolean): void => {
        answers.push({ sentAtMs: sent - startedAt, ms: performance.now() - sent, method, path, outcome, ok });
      };
      await timedRequest(baseUrl, method, path, {}, body).then(
        (answer) => record(String(answer.status), answer.status === expectedStatus),
        (error: Error) => record(error.message, false),
      );
      due = Math.max(due + intervalMs, performance.now());
    }
  }

  const running = Array.from({ length: connections }, (_, i) => connection((i * intervalMs) / connections));
  return {
    startedAt,
    async stop() {
      stopped = true;
      await Promise.all(running);
      return answers.sort((a, b) => a.sentAtMs - b.sentAtMs);
    },
  };
}
