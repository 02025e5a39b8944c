import type { Registry } from '../../metrics/registry.js';

/** What webhook delivery reports: each attempt's outcome, and how long acknowledged events took. */
export interface WebhookObserver {
  /** Acknowledged, `delaySeconds` after the event was recorded. */
  delivered(delaySeconds: number): void;
  failedAttempt(): void;
  /** The retry period is over: the delivery is marked failed. */
  gaveUp(): void;
}

export const unobserved: WebhookObserver = { delivered: () => {}, failedAttempt: () => {}, gaveUp: () => {} };

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
  };
}
