import { SseClient } from '../../events/support/sse-client.js';
import { TEST_PASSWORD } from '../../helpers/service.js';
import type { OutboxEvent } from '../checkers/events.js';

/**
 * A reader of the event stream of one instance for the whole run: when the stream breaks (the
 * instance lost its node, a fault), it opens it again with Last-Event-ID, as EventSource does.
 */
export class StreamReader {
  readonly received: OutboxEvent[] = [];
  private client: SseClient | undefined;
  private stopped = false;
  readonly done: Promise<void>;

  constructor(private readonly baseUrl: string) {
    this.done = this.follow();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.client?.close();
    await this.done;
  }

  private async follow(): Promise<void> {
    while (!this.stopped) {
      const last = this.received.at(-1)?.id;
      try {
        this.client = await SseClient.open(this.baseUrl, `/api/users/events?pwd=${TEST_PASSWORD}`, last === undefined ? {} : { 'last-event-id': String(last) });
        if (this.client.status !== 200) await this.client.text();
        else {
          for (let event = await this.client.nextEvent(); event !== undefined && !this.stopped; event = await this.client.nextEvent()) {
            this.received.push({ id: event.id, type: event.data.type, user_id: event.data.data.id, request_id: event.data.request_id });
          }
        }
      } catch {
        // The instance did not answer: try again shortly.
      }
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
