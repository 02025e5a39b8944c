import type { Registry, Series } from '../../metrics/registry.js';

/** What webhook delivery reports: each attempt's outcome, how long acknowledged events took, and the deliveries each endpoint has left. */
export interface WebhookObserver {
  /** Acknowledged, `delaySeconds` after the event was recorded. */
  delivered(delaySeconds: number): void;
  failedAttempt(): void;
  /** The retry period is over: the delivery is marked failed. */
  gaveUp(): void;
  /** An API endpoint was disabled after failing for WEBHOOK_DISABLE_AFTER. */
  autoDisabled(): void;
  /** Where the per-endpoint counts go to be shown; undefined when nothing is recorded (then nothing is counted). */
  readonly endpoints: EndpointGauges | undefined;
}

export const unobserved: WebhookObserver = { delivered: () => {}, failedAttempt: () => {}, gaveUp: () => {}, autoDisabled: () => {}, endpoints: undefined };

/** One endpoint's deliveries left, as the gauges show them. */
export interface EndpointFigures {
  /** Without its query (shownUrl). */
  endpoint: string;
  pending: number;
  failed: number;
}

/**
 * The pending and failed deliveries of every endpoint, as the one process that counts them last
 * read them (delivery-gauges.ts). They are shown only while `current()` says that process still
 * counts, so that across workers and instances each endpoint's figures come from one process and
 * add up to themselves.
 */
export class EndpointGauges {
  private figures: readonly EndpointFigures[] = [];
  private current: () => boolean = () => false;

  show(figures: readonly EndpointFigures[], current: () => boolean): void {
    this.figures = figures;
    this.current = current;
  }

  hide(): void {
    this.figures = [];
  }

  series(kind: 'pending' | 'failed'): Series[] {
    if (!this.current()) return [];
    // Two URLs that differ only in their query are shown as one endpoint: their figures add up.
    const byEndpoint = new Map<string, number>();
    for (const figures of this.figures) byEndpoint.set(figures.endpoint, (byEndpoint.get(figures.endpoint) ?? 0) + figures[kind]);
    return [...byEndpoint].map(([endpoint, value]) => ({ labels: [endpoint], value }));
  }
}

/** From a fraction of a second (the usual) to the hours of a long outage. */
const DELAY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 14_400, 86_400];

/** The webhook metrics, registered only when webhooks are configured (and metrics on). */
export function webhookMetrics(registry: Registry): WebhookObserver {
  const results = registry.counter(
    'webhook_deliveries_total',
    'Webhook delivery attempts by result: delivered (a 2xx in time), failed_attempt (to be retried), gave_up (the retry period is over: marked failed).',
    ['result'],
  );
  const delays = registry.histogram(
    'webhook_delivery_delay_seconds',
    'Time from an event being recorded to its webhook delivery being acknowledged, in seconds.',
    [],
    DELAY_BUCKETS,
  );
  const endpoints = new EndpointGauges();
  registry.collectedGauge(
    'webhook_deliveries_pending',
    'Webhook deliveries being retried or waiting behind an earlier one of their user, by endpoint (URL without its query); counted by one process of the service.',
    ['endpoint'],
    () => endpoints.series('pending'),
  );
  registry.collectedGauge(
    'webhook_deliveries_failed',
    'Webhook deliveries given up (npm run webhooks -- failed lists them), by endpoint (URL without its query); counted by one process of the service.',
    ['endpoint'],
    () => endpoints.series('failed'),
  );
  const disabled = registry.counter(
    'webhook_endpoints_disabled_total',
    'Webhook endpoints made through the API that were disabled because every attempt failed for WEBHOOK_DISABLE_AFTER.',
    [],
  ).labels();
  const delivered = results.labels('delivered');
  const failedAttempt = results.labels('failed_attempt');
  const gaveUp = results.labels('gave_up');
  const delay = delays.labels();
  return {
    delivered: (seconds) => {
      delivered.inc();
      delay.observe(seconds);
    },
    failedAttempt: () => failedAttempt.inc(),
    gaveUp: () => gaveUp.inc(),
    autoDisabled: () => disabled.inc(),
    endpoints,
  };
}
