import { eventJson, isoTime } from '../event-json.js';
import type { StoredEvent } from '../event-log.js';
import type { WebhookObserver } from './metrics.js';
import { post, type PostResult } from './post.js';
import { signedHeaders, webhookId } from './signature.js';

/** One endpoint's attempts: the event's JSON, signed afresh each time, POSTed, and counted. */
export class Sender {
  constructor(
    private readonly url: string,
    private readonly key: Buffer,
    private readonly timeoutMs: number,
    private readonly observer: WebhookObserver,
  ) {}

  async send(event: StoredEvent, stop: AbortSignal): Promise<PostResult> {
    const body = eventJson(event);
    const result = await post(this.url, body, signedHeaders(this.key, webhookId(event.id), body), this.timeoutMs, stop);
    if (result.kind === 'acknowledged') this.observer.delivered(Math.max(0, (Date.now() - Date.parse(isoTime(event.occurred_at))) / 1000));
    else if (result.kind === 'failed') this.observer.failedAttempt();
    return result;
  }
}
