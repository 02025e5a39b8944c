import type { ServerResponse } from 'node:http';
import { EXPOSED_HEADERS } from '../../http/cors.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../../http/request-id.js';
import { traceparentHeaderOf } from '../../http/response-trace.js';
import { TRACEPARENT_HEADER } from '../../tracing/trace-context.js';
import { eventJson } from '../event-json.js';
import type { StoredEvent } from '../event-log.js';

/** The shortest time EventSource is told to wait before reconnecting to a stream that ended (the `retry:` field). */
export const RECONNECT_MS = 1000;

/** The `text/event-stream` framing: each event's id, type and payload, a comment to keep the connection alive. */
export const sse = {
  /** The `retry:` field: how long EventSource waits before it reconnects. */
  retry: (ms: number): string => `retry: ${Math.round(ms)}\n\n`,
  keepAlive: ': keep-alive\n\n',
  /** eventJson is one line (JSON escapes CR and LF), so one `data:` field carries it. */
  event: (event: StoredEvent): string => `id: ${event.id}\nevent: ${event.type}\ndata: ${eventJson(event)}\n\n`,
  /**
   * An `id:` alone: no event, but the reader's resume point (EventSource's lastEventId, the
   * `Last-Event-ID` it reconnects with) moves to it. A stream of some types sends it after events
   * of other types, so a reader resuming is not sent them again, nor told 410 for them.
   */
  id: (id: number): string => `id: ${id}\n\n`,
  events: (events: readonly StoredEvent[]): string => {
    let text = '';
    for (const event of events) text += sse.event(event);
    return text;
  },
};

/**
 * When a reader should come back: at least RECONNECT_MS, spread at random over a span that grows
 * with the streams that come back together, so that thousands of them do not return at once.
 */
export function reconnectMs(together: number): number {
  const spanMs = Math.min(60_000, Math.max(3000, together * 2));
  return RECONNECT_MS + Math.floor(Math.random() * spanMs);
}

// Built once, like respond.ts's JSON headers: the same cross-origin headers as every API answer.
// `Connection: close` because a stream ends only when it must (shutdown, a reader too slow, a
// database failure), and its connection should go with it rather than idle until keep-alive ends.
const streamHeaders: readonly string[] = [
  'Content-Type', 'text/event-stream',
  'Cache-Control', 'no-cache',
  'X-Accel-Buffering', 'no',
  'Access-Control-Allow-Origin', '*',
  'Access-Control-Expose-Headers', EXPOSED_HEADERS,
  'X-Content-Type-Options', 'nosniff',
  'Connection', 'close',
];

export function writeStreamHead(res: ServerResponse): void {
  res.writeHead(200, streamHeaders.concat(REQUEST_ID_HEADER, requestIdOf(res), TRACEPARENT_HEADER, traceparentHeaderOf(res)));
}
