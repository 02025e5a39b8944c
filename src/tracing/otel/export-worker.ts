/**
 * The span exporter's own thread: it turns the finished spans the service hands it into the SDK's
 * span model and exports them over OTLP/HTTP. The request thread only writes a few values per span
 * (span-codec.ts), so neither the SDK's work nor the spans kept until export (which would outlive
 * V8's young generation and slow every collection) land on the thread that answers requests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { TracingSettings } from '../../config/tracing-settings.js';
import { ExportQueue } from './export-queue.js';
import { readableSpan, type SpanOrigin } from './readable-span.js';
import { SpanDecoder, type EncodedSpans } from './span-codec.js';

export interface WorkerSetup {
  settings: TracingSettings;
  version: string;
}

/** Service -> exporter: finished spans, or a request to send everything queued (a graceful stop). */
export type ToExporter = { kind: 'spans'; group: EncodedSpans } | { kind: 'flush' };
/** Exporter -> service. */
export type FromExporter =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'taken'; count: number }
  | { kind: 'exported'; count: number }
  | { kind: 'dropped'; count: number; reason: string }
  | { kind: 'flushed' };

const port = parentPort!;
const post = (message: FromExporter): void => port.postMessage(message);
const { settings, version } = workerData as WorkerSetup;

let modules;
try {
  modules = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/resources'),
    settings.protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
} catch (error) {
  post({ kind: 'failed', message: (error as Error).message.split('\n')[0]! });
}

if (modules) {
  const [api, resources, otlp] = modules;
  // The queue sends one request at a time; the exporter's limit leaves room for the one just answered.
  const exporter = new otlp.OTLPTraceExporter({ url: settings.url, headers: settings.headers, timeoutMillis: 10_000, concurrencyLimit: 2 });
  const queue = new ExportQueue(
    exporter,
    (count, reason) => post({ kind: 'dropped', count, reason }),
    (count) => post({ kind: 'exported', count }),
    settings.batching,
  );
  const origin: SpanOrigin = {
    resource: resources.resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': version }),
    instrumentationScope: { name: 'user-service', version },
    enums: { server: api.SpanKind.SERVER, client: api.SpanKind.CLIENT, sampled: api.TraceFlags.SAMPLED, unset: api.SpanStatusCode.UNSET, error: api.SpanStatusCode.ERROR },
  };
  const decoder = new SpanDecoder();

  port.on('message', (message: ToExporter) => {
    if (message.kind === 'spans') {
      decoder.decode(message.group, (span) => queue.add(readableSpan(span, origin)));
      post({ kind: 'taken', count: message.group.count });
    } else {
      void queue.forceFlush().finally(() => post({ kind: 'flushed' }));
    }
  });
  post({ kind: 'ready' });
}
