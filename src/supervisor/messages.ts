/**
 * Schema set-up runs once, in the primary. A worker asks whether it is done once it can hear the
 * answer (a message sent before it listens is lost); the primary answers when it is, and tells
 * every worker when it gets done.
 */
export const schemaWantedMessage = { type: 'schema-wanted' } as const;
export const schemaReadyMessage = { type: 'schema-ready' } as const;
/**
 * Where the primary's set-up stands before it is ready (SchemaPhase): a worker refuses requests with
 * 503 while it is `starting` or `applying`, and lets them fail as storage failures while the
 * primary waits for the database.
 */
export interface SchemaPhaseMessage {
  type: 'schema-phase';
  phase: 'starting' | 'waiting for the database' | 'applying';
}

export function schemaPhaseMessage(phase: SchemaPhaseMessage['phase']): SchemaPhaseMessage {
  return { type: 'schema-phase', phase };
}

/**
 * From the primary: drain without waiting out SHUTDOWN_DELAY_S (a second signal to the primary, or a
 * stop for a failure, where no load balancer needs the time). Before the stop signal it still holds.
 */
export const skipShutdownDelayMessage = { type: 'skip-shutdown-delay' } as const;

export function isMessage(message: unknown, expected: { type: string }): boolean {
  return (message as { type?: unknown } | null)?.type === expected.type;
}
