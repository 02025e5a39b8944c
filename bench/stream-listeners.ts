/**
 * The listeners of `--mode streams`, in a process of their own (so their work is not counted as the
 * service's): opens the streams it is told to over node:http, and records when each event (by the
 * request id of the write that made it) reaches each stream. Driven over IPC by bench/streams.ts.
 */
import { get, type IncomingMessage } from 'node:http';

export type ListenerCommand = { open: { url: string; count: number } } | { report: true } | { close: true };

export type ListenerMessage =
  | { opened: number; failed: number }
  | { report: ListenerReport };

export interface ListenerReport {
  /** Per stream: the event ids received, in order. */
  ids: number[][];
  /** Per stream: ms (process.hrtime, shared by every process of the machine) at which each event arrived, by request id. */
  arrivals: Array<Record<string, number>>;
  /** Streams the service ended or that broke. */
  closed: number;
}

const EVENT = /id: (\d+)\nevent: [^\n]*\ndata: [^\n]*"request_id":("[^"]*"|null)/g;
/** Streams opened at once while ramping up. */
const RAMP = 200;

class Listener {
  readonly ids: number[] = [];
  readonly arrivals: Record<string, number> = {};
  closed = false;
  private rest = '';

  constructor(readonly response: IncomingMessage) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => this.take(chunk));
    response.on('close', () => (this.closed = true));
  }

  private take(chunk: string): void {
    const at = nowMs();
    const text = this.rest + chunk;
    const end = text.lastIndexOf('\n\n');
    if (end < 0) {
      this.rest = text;
      return;
    }
    this.rest = text.slice(end + 2);
    for (const match of text.slice(0, end + 2).matchAll(EVENT)) {
      this.ids.push(Number(match[1]));
      if (match[2] !== 'null') this.arrivals[JSON.parse(match[2]!) as string] = at;
    }
  }
}

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

const listeners: Listener[] = [];

function openOne(url: string): Promise<Listener | undefined> {
  return new Promise((resolve) => {
    const request = get(url, { agent: false }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        return resolve(undefined);
      }
      const listener = new Listener(response);
      // The head, then the opening retry: the stream is live once that has arrived.
      response.once('data', () => resolve(listener));
    });
    request.once('error', () => resolve(undefined));
  });
}

async function open(url: string, count: number): Promise<void> {
  let failed = 0;
  for (let opened = 0; opened < count; ) {
    const batch = await Promise.all(Array.from({ length: Math.min(RAMP, count - opened) }, () => openOne(url)));
    for (const listener of batch) {
      if (listener) listeners.push(listener);
      else failed++;
    }
    opened += batch.length;
  }
  process.send!({ opened: listeners.length, failed } satisfies ListenerMessage);
}

process.on('message', (command: ListenerCommand) => {
  if ('open' in command) void open(command.open.url, command.open.count);
  else if ('report' in command) {
    const report: ListenerReport = {
      ids: listeners.map((listener) => listener.ids),
      arrivals: listeners.map((listener) => listener.arrivals),
      closed: listeners.filter((listener) => listener.closed).length,
    };
    process.send!({ report } satisfies ListenerMessage);
  } else {
    for (const listener of listeners) listener.response.destroy();
    setTimeout(() => process.exit(0), 200);
  }
});
