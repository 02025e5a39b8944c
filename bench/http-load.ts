import autocannon, { type Context, type RequestData, type Result } from 'autocannon';
import { Tally, type Measurement } from './measurement.js';
import { cpuWatch, type MeasuredPids } from './proc.js';
import type { BenchOptions } from './options.js';
import { lookedUpEmail, PAGE_SIZE, pageAfter, type Scenario, SEARCH_PAGE_SIZE, searchText, userFields, userId } from './workload.js';

interface HttpOperation {
  method: string;
  path: string;
  body?: string;
  expectedStatus: number;
}

/** The n-th request of a scenario and the status its answer must have. */
export function httpOperation(scenario: Scenario, n: number, password: string): HttpOperation {
  switch (scenario.kindOf(n)) {
    case 'get':
      return { method: 'GET', path: `/api/users/${userId(scenario, n)}`, expectedStatus: 200 };
    case 'list':
      return { method: 'GET', path: `/api/users?pwd=${encodeURIComponent(password)}`, expectedStatus: 200 };
    case 'page':
      return {
        method: 'GET',
        path: `/api/users?pwd=${encodeURIComponent(password)}&limit=${PAGE_SIZE}&after=${pageAfter(n)}`,
        expectedStatus: 200,
      };
    case 'email':
      return { method: 'GET', path: `/api/users?pwd=${encodeURIComponent(password)}&email=${encodeURIComponent(lookedUpEmail(n))}`, expectedStatus: 200 };
    case 'search':
      return {
        method: 'GET',
        path: `/api/users?pwd=${encodeURIComponent(password)}&q=${encodeURIComponent(searchText(n))}&limit=${SEARCH_PAGE_SIZE}`,
        expectedStatus: 200,
      };
    case 'create':
      return { method: 'POST', path: '/api/users', body: JSON.stringify(userFields(n)), expectedStatus: 201 };
    case 'update':
      return { method: 'PUT', path: `/api/users/${userId(scenario, n)}`, body: JSON.stringify(userFields(n)), expectedStatus: 200 };
  }
}

/**
 * Runs the scenario's requests against baseUrl with autocannon: an unmeasured warm-up, then the
 * measured run. Every response is checked against the status its request expects; others count as errors.
 * `pids` are the processes whose CPU time is reported per request.
 */
export async function measureHttp(
  baseUrl: string,
  pids: MeasuredPids,
  scenario: Scenario,
  password: string,
  options: BenchOptions,
): Promise<Measurement> {
  let next = 0;
  let tally: Tally | undefined;
  const request = {
    setupRequest(data: RequestData, context: Context): RequestData {
      const operation = httpOperation(scenario, next++, password);
      context.expected = operation.expectedStatus;
      data.method = operation.method;
      data.path = operation.path;
      // A fresh object each time: autocannon writes Content-Length into it.
      data.headers = operation.body === undefined ? {} : { 'content-type': 'application/json' };
      data.body = operation.body ?? '';
      return data;
    },
    onResponse(status: number, _body: string, context: Context): void {
      if (!tally) return;
      if (status === context.expected) tally.success();
      else tally.failure(String(status));
    },
  };
  const run = (seconds: number): Promise<Result> =>
    new Promise((resolve, reject) => {
      const instance = autocannon(
        { url: baseUrl, connections: options.connections, duration: seconds, requests: [request] },
        (error, result) => (error ? reject(error) : resolve(result)),
      );
      instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => tally?.latency(ms));
    });

  if (options.warmupSec > 0) await run(options.warmupSec);
  const measured = new Tally();
  tally = measured;
  const cpu = cpuWatch(pids);
  const result = await run(options.durationSec);
  tally = undefined;
  measured.failure('timeout', result.timeouts);
  measured.failure('connection error', result.errors - result.timeouts);
  const outcome = measured.result(result.duration);
  return { ...outcome, ...cpu.stop(outcome.ok) };
}
