import { eventJson, isoTime } from '../event-json.js';
import type { StoredEvent } from '../event-log.js';
import type { DeliveryTarget } from './delivery-target.js';
import type { AttemptLog } from './endpoints/attempt-log.js';
import { utcNow } from './endpoints/attempt-log.js';
import type { EndpointHealth } from './endpoint-health.js';
import type { FailingMark } from './failing-mark.js';
import type { WebhookObserver } from './metrics.js';
import { post, type EndpointAgents, type PostResult } from './post.js';
import { signedHeaders, webhookId } from './signature.js';
import { attemptSpanOf, TRACEPARENT_HEADER, traceparentOf, type SpanContext } from '../../tracing/trace-context.js';
import type { AttributeNames } from '../../tracing/finished-span.js';
import { activeTracing } from '../../tracing/tracing.js';
import { shownUrl } from './shown-url.js';

/** A webhook attempt's client span: HTTP's semantic conventions and the event it carried. */
const ATTEMPT_SPAN: AttributeNames = ['http.request.method', 'url.full', 'server.address', 'http.response.status_code', 'webhook.event_id', 'webhook.event_type'];

/** What follows each attempt besides its result: the log of attempts, the process's view of the endpoint's health, the database's. */
export interface AttemptWitnesses {
  observer: WebhookObserver;
  health: EndpointHealth;
  mark: FailingMark;
  attempts: AttemptLog;
}

/**
 * One endpoint's attempts: the event's JSON, signed afresh each time with each key that signs now,
 * POSTed to the target's URL as it is now, counted, logged and told to the endpoint's health. Each
 * attempt is a span of the trace of the request that made the change, named in its `traceparent`,
 * so a receiver's work joins that request's trace.
 */
export class Sender {
  constructor(
    private readonly target: DeliveryTarget,
    private readonly timeoutMs: number,
    private readonly witnesses: AttemptWitnesses,
    private readonly agents: EndpointAgents,
  ) {}

  async send(event: StoredEvent, stop: AbortSignal): Promise<PostResult> {
    const body = eventJson(event);
    const span = attemptSpanOf(event.traceparent);
    const headers = signedHeaders(this.target.keys(), webhookId(event.id), body);
    headers[TRACEPARENT_HEADER] = traceparentOf(span);
    const startMs = performance.timeOrigin + performance.now();
    const url = this.target.url;
    const result = await post(url, body, headers, this.timeoutMs, stop, { guard: this.target.guard, agents: this.agents });
    if (result.kind === 'stopped') return result;
    if (span.sampled) this.traced(url, span, event, startMs, result);
    const { observer, health, mark, attempts } = this.witnesses;
    if (result.kind === 'acknowledged') observer.delivered(Math.max(0, (Date.now() - Date.parse(isoTime(event.occurred_at))) / 1000));
    else observer.failedAttempt();
    health.attempted(event.id, result);
    mark.attempted(result.kind === 'acknowledged');
    attempts.record({
      endpoint: this.target.key,
      eventId: event.id,
      eventType: event.type,
      attemptedAt: utcNow(startMs),
      succeeded: result.kind === 'acknowledged',
      responseStatus: result.status,
      durationMs: result.durationMs,
      error: result.kind === 'failed' ? result.reason : null,
      responseBody: result.body,
    });
    return result;
  }

  /** The attempt's client span, when the change's request was sampled and spans are exported. */
  private traced(url: string, span: SpanContext, event: StoredEvent, startMs: number, result: Exclude<PostResult, { kind: 'stopped' }>): void {
    const tracing = activeTracing();
    if (tracing === undefined) return;
    tracing.record({
      span,
      name: 'POST',
      kind: 'client',
      startMs,
      endMs: performance.timeOrigin + performance.now(),
      names: ATTEMPT_SPAN,
      values: ['POST', shownUrl(url), new URL(url).hostname, result.status ?? undefined, event.id, event.type],
      ...(result.kind === 'failed' ? { error: result.error } : {}),
    });
  }
}
