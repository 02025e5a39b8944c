/**
 * Schema set-up runs once, in the primary. A worker asks whether it is done once it can hear the
 * answer (a message sent before it listens is lost); the primary answers when it is, and tells
 * every worker when it gets done.
 */
export const schemaWantedMessage = { type: 'schema-wanted' } as const;
export const schemaReadyMessage = { type: 'schema-ready' } as const;
/** The primary reached the database and is putting the schema in place: workers answer 503 until it is ready. */
export const schemaApplyingMessage = { type: 'schema-applying' } as const;

/**
 * From the primary: drain without waiting out SHUTDOWN_DELAY_S (a second signal to the primary, or a
 * stop for a failure, where no load balancer needs the time). Before the stop signal it still holds.
 */
export const skipShutdownDelayMessage = { type: 'skip-shutdown-delay' } as const;

export function isMessage(message: unknown, expected: { type: string }): boolean {
  return (message as { type?: unknown } | null)?.type === expected.type;
}
