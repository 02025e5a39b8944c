import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { TracingSettings } from '../../config/tracing-settings.js';
import { sampler, type SampleDecision } from '../sampler.js';
import type { FinishedSpan } from '../finished-span.js';
import type { FromExporter, ToExporter, WorkerSetup } from './export-worker.js';
import { SpanEncoder } from './span-codec.js';

/** What the rest of the service uses: a sampling decision per new trace, and finished spans handed over. */
export interface SpanExport {
  readonly decide: SampleDecision;
  record(finished: FinishedSpan): void;
  /** Sends what is queued (a graceful stop), bounded by the exporter's timeout, then ends the exporter's thread. */
  shutdown(): Promise<void>;
}

export interface ExportCounters {
  dropped(count: number, reason: string): void;
  exported(count: number): void;
}

/**
 * Finished spans are handed to the exporter's thread in groups: this many (or a batch, if smaller),
 * or those of this long.
 * Each hand-off wakes both threads; at a few sampled requests a second, a shorter wait meant one
 * hand-off per span. The exporter then waits up to its own delay to fill a batch anyway.
 */
const HANDOFF_SPANS = 128;
const HANDOFF_MS = 500;
/** A graceful stop waits this long at most for the last export (the exporter's own timeout is 10 s). */
const FLUSH_LIMIT_MS = 12_000;

/**
 * OTLP/HTTP export with the official OpenTelemetry SDK and exporters (protobuf or JSON), on a thread
 * of its own (export-worker.ts). Here, a finished span costs a few values pushed to an array; groups
 * of them go to that thread in one message. Spans beyond what the exporter can hold are dropped and counted.
 */
export async function startSpanExport(settings: TracingSettings, version: string, counters: ExportCounters): Promise<SpanExport> {
  const setup: WorkerSetup = { settings, version };
  const limits = settings.batching;
  const handOffAt = Math.min(HANDOFF_SPANS, limits.batchSize);
  const worker = exporterThread(setup);
  const [first] = (await Promise.race([once(worker, 'message'), once(worker, 'error').then(([error]) => [{ kind: 'failed', message: (error as Error).message }])])) as [FromExporter];
  if (first.kind !== 'ready') {
    await worker.terminate();
    throw new MissingTracingPackages(
      `OTEL_EXPORTER_OTLP_ENDPOINT needs the optional @opentelemetry packages, which could not be loaded (${first.kind === 'failed' ? first.message : first.kind}): install them (npm install without --omit=optional)`,
    );
  }
  worker.unref();
  let handedOver = 0;
  const pending = new SpanEncoder();
  let timer: NodeJS.Timeout | undefined;
  let flushed: (() => void) | undefined;
  worker.on('message', (message: FromExporter) => {
    if (message.kind === 'taken') handedOver -= message.count;
    else if (message.kind === 'exported') counters.exported(message.count);
    else if (message.kind === 'dropped') counters.dropped(message.count, message.reason);
    else if (message.kind === 'flushed') flushed?.();
  });
  worker.on('error', (error) => counters.dropped(0, `the exporter's thread failed: ${error.message}`));
  const handOff = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (pending.count === 0) return;
    handedOver += pending.count;
    worker.postMessage({ kind: 'spans', group: pending.take() } satisfies ToExporter);
  };
  return {
    decide: sampler(settings.sampler, settings.ratio),
    record(finished) {
      // The exporter's thread is that far behind: what it cannot queue is dropped here, not held.
      if (handedOver + pending.count >= limits.maxQueued) return counters.dropped(1, 'export queue full');
      pending.add(finished);
      if (pending.count >= handOffAt) handOff();
      else timer ??= setTimeout(handOff, HANDOFF_MS).unref();
    },
    async shutdown() {
      handOff();
      const done = new Promise<void>((resolve) => (flushed = resolve));
      worker.postMessage({ kind: 'flush' } satisfies ToExporter);
      await Promise.race([done, new Promise((resolve) => setTimeout(resolve, FLUSH_LIMIT_MS).unref())]);
      await worker.terminate();
    },
  };
}

/**
 * The exporter's thread. Compiled, it runs export-worker.js; from the TypeScript sources (npm start,
 * the tests) a worker does not inherit tsx's loader, so it registers it before importing the entry.
 */
function exporterThread(setup: WorkerSetup): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./export-worker.js', import.meta.url), { workerData: setup });
  return new Worker(new URL('./ts-worker.mjs', import.meta.url), { workerData: { ...setup, entry: new URL('./export-worker.ts', import.meta.url).href } });
}

/** The packages are optional dependencies: loaded only when export is configured. */
export class MissingTracingPackages extends Error {}
