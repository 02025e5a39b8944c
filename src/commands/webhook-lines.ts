/** How `npm run webhooks` prints endpoints and deliveries: one line each. */
import type { FailedDelivery, PendingDelivery } from '../events/webhooks/delivery-listing.js';
import type { ListedEndpoint } from '../events/webhooks/endpoint-operator.js';
import { shownUrl } from '../events/webhooks/shown-url.js';

/** `3  api  https://hooks.example.com/a  enabled  2 pending  0 failed  delivered` */
export function endpointLine(endpoint: ListedEndpoint): string {
  const state = endpoint.disabled ? `disabled${endpoint.disabledReason === null ? '' : ` (${endpoint.disabledReason})`}` : 'enabled';
  return [
    endpoint.id ?? '-',
    endpoint.source,
    shownUrl(endpoint.url),
    state,
    `${endpoint.pending} pending`,
    `${endpoint.failed} failed`,
    endpoint.delivered ? 'delivered by a running service' : 'no running service delivers to it',
  ].join('  ');
}

export function deliveries(count: number): string {
  return count === 1 ? 'delivery' : 'deliveries';
}

function attempts(count: number): string {
  return `${count} attempt${count === 1 ? '' : 's'}`;
}

/** `<url>  event 42  user.updated  user 7  3 attempts  last error: HTTP 500  next attempt 2026-11-25 01:02:33.456 UTC (in 28 s)` */
export function pendingLine(delivery: PendingDelivery): string {
  const { next } = delivery;
  const when =
    'behind' in next
      ? `next attempt after event ${next.behind} (its user's earlier delivery)`
      : next.inSeconds <= 0
        ? 'next attempt now'
        : `next attempt ${next.at} UTC (in ${inWords(next.inSeconds)})`;
  return [
    delivery.url,
    `event ${delivery.eventId}`,
    delivery.type ?? '(pruned)',
    `user ${delivery.userId}`,
    attempts(delivery.attempts),
    `last error: ${delivery.lastError ?? '-'}`,
    when,
  ].join('  ');
}

/** `<url>  event 42  user.updated  user 7  5 attempts  queued 2026-11-25 01:02:03.456 UTC  last error: HTTP 500` */
export function failedLine(delivery: FailedDelivery): string {
  return [
    delivery.url,
    `event ${delivery.eventId}`,
    delivery.type ?? '(pruned)',
    `user ${delivery.userId}`,
    attempts(delivery.attempts),
    `queued ${delivery.queuedAt} UTC`,
    `last error: ${delivery.lastError ?? '-'}`,
  ].join('  ');
}

/** `28 s`, `12 min`, `3.5 h`. */
function inWords(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 2 * 3600) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 360) / 10} h`;
}
