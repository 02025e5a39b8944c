import type { Registry } from '../../metrics/registry.js';

/** What the streams report: reads of the outbox, by who made them. */
export interface StreamObserver {
  /** The process's one reader looked for new events. */
  tailRead(): void;
  /** A stream behind the window read a page (or the pruned mark) itself. */
  catchUpRead(): void;
}

export const unobservedStreams: StreamObserver = { tailRead: () => {}, catchUpRead: () => {} };

/** The stream's metrics (EVENTS=on and METRICS=on): open streams, and what they cost the database. */
export function streamMetrics(registry: Registry, openStreams: () => number): StreamObserver {
  registry.collected('gauge', 'event_streams_open', 'Event streams (GET /api/users/events) open now.', openStreams);
  const reads = registry.counter(
    'event_stream_reads_total',
    'Reads of the outbox for the event streams: by the one reader of new events per process (tail), or by a stream resuming from before the events kept in memory (catch_up).',
    ['reader'],
  );
  const tail = reads.labels('tail');
  const catchUp = reads.labels('catch_up');
  return { tailRead: () => tail.inc(), catchUpRead: () => catchUp.inc() };
}
