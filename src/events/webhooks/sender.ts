import { eventJson, isoTime } from '../event-json.js';
import type { StoredEvent } from '../event-log.js';
import type { EndpointHealth } from './endpoint-health.js';
import type { WebhookObserver } from './metrics.js';
import { post, type PostResult } from './post.js';
import { signedHeaders, webhookId } from './signature.js';

/** One endpoint's attempts: the event's JSON, signed afresh each time, POSTed, counted, and told to the endpoint's health. */
export class Sender {
  constructor(
    private readonly url: string,
    private readonly key: Buffer,
    private readonly timeoutMs: number,
    private readonly observer: WebhookObserver,
    private readonly health: EndpointHealth,
  ) {}

  async send(event: StoredEvent, stop: AbortSignal): Promise<PostResult> {
    const body = eventJson(event);
    const result = await post(this.url, body, signedHeaders(this.key, webhookId(event.id), body), this.timeoutMs, stop);
    if (result.kind === 'acknowledged') this.observer.delivered(Math.max(0, (Date.now() - Date.parse(isoTime(event.occurred_at))) / 1000));
    else if (result.kind === 'failed') this.observer.failedAttempt();
    this.health.attempted(event.id, result);
    return result;
  }
}
