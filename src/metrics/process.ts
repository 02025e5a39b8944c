import { buildInfo } from './build-info.js';
import type { Registry } from './registry.js';

/** When this process started, in seconds since the epoch: a restart or a rollout shows as a step. */
const startTimeSeconds = Math.round(performance.timeOrigin) / 1000;

/** The process figures under their conventional names (those of Prometheus's Node.js client). */
export function registerProcessMetrics(registry: Registry): void {
  registry.collected('gauge', 'process_resident_memory_bytes', 'Resident memory size in bytes.', () => process.memoryUsage.rss());
  registry.collected('counter', 'process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  });
  registry.collected('gauge', 'nodejs_eventloop_lag_seconds', 'Lag of event loop in seconds.', eventLoopLag, 'max');
  // Merged across workers by the latest: a worker restarted by the primary shows too.
  registry.collected('gauge', 'process_start_time_seconds', 'Start time of the process since unix epoch in seconds.', () => startTimeSeconds, 'max');
  const { version, node, mysql2 } = buildInfo();
  registry.collectedGauge('service_build_info', 'The running version of the service, Node.js and mysql2; always 1.', ['version', 'node', 'mysql2'], () => [
    { labels: [version, node, mysql2], value: 1 },
  ], 'max');
}

/** How long a callback queued now waits for its turn: measured only while a scrape asks, so it costs nothing otherwise. */
function eventLoopLag(): Promise<number> {
  const queued = performance.now();
  return new Promise((resolve) => setImmediate(() => resolve((performance.now() - queued) / 1000)));
}
