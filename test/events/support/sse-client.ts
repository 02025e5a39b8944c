import { get, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

/** One block of a text/event-stream: an event (id, event, data), the retry field, or a comment. */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

/** An event as a reader handles it: its id, its type and its payload parsed. */
export interface SseEvent {
  id: number;
  event: string;
  data: EventPayload;
}

export interface EventPayload {
  id: number;
  type: string;
  timestamp: string;
  request_id: string | null;
  data: { id: number; name?: string; email?: string; created_at?: string | null };
}

/** How the stream ended: the server finished it, or the connection broke (reset, destroyed). */
export type StreamEnding = 'end' | 'broken';

/**
 * A reader of `GET /api/users/events` over node:http, so it sends exactly the headers given
 * (Last-Event-ID among them) and can hang up at any moment. A refusal's body is read whole.
 */
export class SseClient {
  private buffer = '';
  private readonly frames: SseFrame[] = [];
  private waiter: (() => void) | undefined;
  private ending: StreamEnding | undefined;
  /** Resolves with how the stream ended. */
  readonly ended: Promise<StreamEnding>;
  /** Everything received so far, as sent. */
  raw = '';

  private constructor(private readonly response: IncomingMessage) {
    response.setEncoding('utf8');
    this.ended = new Promise((resolve) => {
      const finish = (how: StreamEnding): void => {
        if (this.ending !== undefined) return;
        this.ending = how;
        this.wake();
        resolve(how);
      };
      response.on('end', () => finish('end'));
      response.on('error', () => finish('broken'));
      response.on('close', () => finish(response.complete ? 'end' : 'broken'));
    });
    response.on('data', (chunk: string) => this.take(chunk));
  }

  get status(): number {
    return this.response.statusCode ?? 0;
  }

  get headers(): IncomingHttpHeaders {
    return this.response.headers;
  }

  /** Opens a stream; resolves once the response head has arrived. */
  static open(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const request = get(baseUrl + path, { headers, agent: false }, (response) => resolve(new SseClient(response)));
      request.once('error', reject);
    });
  }

  /** The whole body of a refusal (or of a stream that ended), as text. */
  async text(): Promise<string> {
    await this.ended;
    return this.raw;
  }

  /** The next frame, or undefined once the stream has ended and every frame was taken. */
  async next(): Promise<SseFrame | undefined> {
    for (;;) {
      const frame = this.frames.shift();
      if (frame !== undefined) return frame;
      if (this.ending !== undefined) return undefined;
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  /** The next event, skipping comments and the retry field; undefined once the stream has ended. */
  async nextEvent(): Promise<SseEvent | undefined> {
    for (;;) {
      const frame = await this.next();
      if (frame === undefined) return undefined;
      if (frame.event !== undefined) return { id: Number(frame.id), event: frame.event, data: JSON.parse(frame.data ?? '') as EventPayload };
    }
  }

  /** Hangs up. */
  close(): void {
    this.response.destroy();
  }

  private take(chunk: string): void {
    this.raw += chunk;
    this.buffer += chunk;
    if (this.status !== 200) return;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) !== -1) {
      const frame = parseFrame(this.buffer.slice(0, end));
      this.buffer = this.buffer.slice(end + 2);
      this.frames.push(frame);
    }
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}

function parseFrame(block: string): SseFrame {
  const frame: SseFrame = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      frame.comment = line.slice(1).trim();
      continue;
    }
    const colon = line.indexOf(':');
    const field = line.slice(0, colon) as keyof SseFrame;
    const value = line.slice(colon + 1).replace(/^ /, '');
    frame[field] = frame[field] === undefined ? value : `${frame[field]}\n${value}`;
  }
  return frame;
}
