/** What the operator is shown of webhook deliveries (`npm run webhooks`), as WebhookOperator reads them. */

/** What both listings show of a delivery. */
interface ListedDelivery {
  /** The endpoint without its query (shownUrl). */
  url: string;
  eventId: number;
  /** Null once the event was pruned (EVENTS_RETENTION): it can no longer be sent. */
  type: string | null;
  userId: number;
  attempts: number;
  lastError: string | null;
}

/** A delivery marked failed, as `npm run webhooks -- failed` lists it. */
export interface FailedDelivery extends ListedDelivery {
  /** When its retry period began (UTC). */
  queuedAt: string;
}

/** A delivery still pending, as `npm run webhooks -- pending` lists it. */
export interface PendingDelivery extends ListedDelivery {
  /** When it is tried next, or the earlier pending delivery of its user it waits for. */
  next: { at: string; inSeconds: number } | { behind: number };
}

/** An endpoint with deliveries left that no running service delivers to (it is in no WEBHOOK_URLS). */
export interface LeftBehind {
  url: string;
  pending: number;
  failed: number;
}
