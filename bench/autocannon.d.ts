// autocannon ships no type declarations; this declares only the part the benchmark uses.
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export type Context = Record<string, unknown>;

  export interface RequestData {
    method: string;
    path: string;
    headers: Record<string, string>;
    body?: string;
  }

  export interface RequestSpec {
    /** Called before every request; what it returns is sent. */
    setupRequest?: (request: RequestData, context: Context) => RequestData;
    /** Called with every response, with the context its setupRequest saw. */
    onResponse?: (status: number, body: string, context: Context) => void;
  }

  export interface Options {
    url: string;
    connections: number;
    /** Seconds. */
    duration: number;
    /** Seconds a request may take before it counts as a timeout. */
    timeout?: number;
    requests?: RequestSpec[];
  }

  export interface Result {
    /** Seconds the run actually lasted. */
    duration: number;
    errors: number;
    timeouts: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  /** Emits `response` (client, statusCode, bytes, responseTimeMs) for every response. */
  export interface Instance extends EventEmitter {
    stop(): void;
  }

  export default function autocannon(options: Options, done: (error: Error | null, result: Result) => void): Instance;
}
