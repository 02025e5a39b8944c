import { eventJson, isoTime } from '../event-json.js';
import type { StoredEvent } from '../event-log.js';
import type { EndpointHealth } from './endpoint-health.js';
import type { WebhookObserver } from './metrics.js';
import { post, type PostResult } from './post.js';
import { signedHeaders, webhookId } from './signature.js';
import { attemptSpanOf, TRACEPARENT_HEADER, traceparentOf, type SpanContext } from '../../tracing/trace-context.js';
import { activeTracing } from '../../tracing/tracing.js';
import { shownUrl } from './shown-url.js';

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
    const startMs = performance.timeOrigin + performance.now();
    const result = await post(this.url, body, headers, this.timeoutMs, stop);
    if (span.sampled) this.traced(span, event, startMs, result);
    if (result.kind === 'acknowledged') this.observer.delivered(Math.max(0, (Date.now() - Date.parse(isoTime(event.occurred_at))) / 1000));
    else if (result.kind === 'failed') this.observer.failedAttempt();
    this.health.attempted(event.id, result);
    return result;
  }

  /** The attempt's client span, when the change's request was sampled and spans are exported. */
  private traced(span: SpanContext, event: StoredEvent, startMs: number, result: PostResult): void {
    const tracing = activeTracing();
    if (tracing === undefined || result.kind === 'stopped') return;
    const status = result.kind === 'failed' ? /^HTTP (\d{3})/.exec(result.error)?.[1] : undefined;
    tracing.record({
      span,
      name: 'POST',
      kind: 'client',
      startMs,
      endMs: performance.timeOrigin + performance.now(),
      attributes: {
        'http.request.method': 'POST',
        'url.full': shownUrl(this.url),
        'server.address': new URL(this.url).hostname,
        ...(status === undefined ? {} : { 'http.response.status_code': Number(status) }),
        'webhook.event_id': event.id,
        'webhook.event_type': event.type,
      },
      ...(result.kind === 'failed' ? { error: result.error } : {}),
    });
  }
}
