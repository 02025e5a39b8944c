import type { Registry } from './registry.js';

/** The process figures under their conventional names (those of Prometheus's Node.js client). */
export function registerProcessMetrics(registry: Registry): void {
  registry.collected('gauge', 'process_resident_memory_bytes', 'Resident memory size in bytes.', () => process.memoryUsage.rss());
  registry.collected('counter', 'process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  });
  registry.collected('gauge', 'nodejs_eventloop_lag_seconds', 'Lag of event loop in seconds.', eventLoopLag, 'max');
}

/** How long a callback queued now waits for its turn: measured only while a scrape asks, so it costs nothing otherwise. */
function eventLoopLag(): Promise<number> {
  const queued = performance.now();
  return new Promise((resolve) => setImmediate(() => resolve((performance.now() - queued) / 1000)));
}
