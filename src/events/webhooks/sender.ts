import { eventJson, isoTime } from '../event-json.js';
import type { StoredEvent } from '../event-log.js';
import type { EndpointHealth } from './endpoint-health.js';
import type { WebhookObserver } from './metrics.js';
import { post, type PostResult } from './post.js';
import { signedHeaders, webhookId } from './signature.js';
import { attemptSpanOf, TRACEPARENT_HEADER, traceparentOf } from '../../tracing/trace-context.js';

/**
 * One endpoint's attempts: the event's JSON, signed afresh each time, POSTed, counted, and told to
 * the endpoint's health. Each attempt is a span of the trace of the request that made the change,
 * named in its `traceparent`, so a receiver's work joins that request's trace.
 */
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
    const span = attemptSpanOf(event.traceparent);
    const headers = signedHeaders(this.key, webhookId(event.id), body);
    headers[TRACEPARENT_HEADER] = traceparentOf(span);
    const result = await post(this.url, body, headers, this.timeoutMs, stop);
    if (result.kind === 'acknowledged') this.observer.delivered(Math.max(0, (Date.now() - Date.parse(isoTime(event.occurred_at))) / 1000));
    else if (result.kind === 'failed') this.observer.failedAttempt();
    this.health.attempted(event.id, result);
    return result;
  }
}
