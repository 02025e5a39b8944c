import type { ServerResponse } from 'node:http';
import { EXPOSED_HEADERS } from '../../http/cors.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../../http/request-id.js';
import { eventJson } from '../event-json.js';
import type { StoredEvent } from '../event-log.js';

/** How long EventSource waits before reconnecting to a stream that ended (the `retry:` field). */
export const RECONNECT_MS = 1000;

/** The `text/event-stream` framing: each event's id, type and payload, a comment to keep the connection alive. */
export const sse = {
  /** The first bytes of every stream: EventSource's reconnection delay. */
  opening: `retry: ${RECONNECT_MS}\n\n`,
  keepAlive: ': keep-alive\n\n',
  /** eventJson is one line (JSON escapes CR and LF), so one `data:` field carries it. */
  events: (events: readonly StoredEvent[]): string => {
    let text = '';
    for (const event of events) text += `id: ${event.id}\nevent: ${event.type}\ndata: ${eventJson(event)}\n\n`;
    return text;
  },
};

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
  res.writeHead(200, streamHeaders.concat(REQUEST_ID_HEADER, requestIdOf(res)));
}
