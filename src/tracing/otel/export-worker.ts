/**
 * The span exporter's own thread: it builds the SDK's spans from the finished spans the service
 * hands it and exports them over OTLP/HTTP. The request thread only copies a few fields per span
 * (span-export.ts), so neither the SDK's work nor the spans kept until export (which would outlive
 * V8's young generation and slow every collection) land on the thread that answers requests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { TracingSettings } from '../../config/tracing-settings.js';
import type { SpanContext } from '../trace-context.js';
import { ExportQueue, type QueueLimits } from './export-queue.js';
import type { FinishedSpan } from './span-export.js';

export interface WorkerSetup {
  settings: TracingSettings;
  version: string;
  limits?: QueueLimits;
}

/** Service -> exporter: finished spans, or a request to send everything queued (a graceful stop). */
export type ToExporter = { kind: 'spans'; spans: FinishedSpan[] } | { kind: 'flush' };
/** Exporter -> service. */
export type FromExporter =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'taken'; count: number }
  | { kind: 'exported'; count: number }
  | { kind: 'dropped'; count: number; reason: string }
  | { kind: 'flushed' };

/** Hands the SDK the ids this service chose for the next span (the ones its `traceparent` named). */
class PresetIds {
  private traceId: string | undefined;
  private spanId: string | undefined;

  constructor(private readonly random: { generateTraceId(): string; generateSpanId(): string }) {}

  preset(traceId: string, spanId: string): void {
    this.traceId = traceId;
    this.spanId = spanId;
  }

  generateTraceId(): string {
    const id = this.traceId ?? this.random.generateTraceId();
    this.traceId = undefined;
    return id;
  }

  generateSpanId(): string {
    const id = this.spanId ?? this.random.generateSpanId();
    this.spanId = undefined;
    return id;
  }
}

const port = parentPort!;
const post = (message: FromExporter): void => port.postMessage(message);
const { settings, version, limits } = workerData as WorkerSetup;

let modules;
try {
  modules = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/resources'),
    settings.protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
} catch (error) {
  post({ kind: 'failed', message: (error as Error).message.split('\n')[0]! });
}

if (modules) {
  const [api, sdk, resources, otlp] = modules;
  const ids = new PresetIds(new sdk.RandomIdGenerator());
  // The queue sends one request at a time; the exporter's limit leaves room for the one just answered.
  const exporter = new otlp.OTLPTraceExporter({ url: settings.url, headers: settings.headers, timeoutMillis: 10_000, concurrencyLimit: 2 });
  const queue = new ExportQueue(
    exporter,
    (count, reason) => post({ kind: 'dropped', count, reason }),
    (count) => post({ kind: 'exported', count }),
    limits,
  );
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': version }),
    sampler: new sdk.AlwaysOnSampler(),
    idGenerator: ids,
    spanProcessors: [queue],
  });
  const tracer = provider.getTracer('user-service', version);
  const kinds = { server: api.SpanKind.SERVER, client: api.SpanKind.CLIENT };
  const remote = (traceId: string, spanId: string) => ({ traceId, spanId, traceFlags: api.TraceFlags.SAMPLED, isRemote: true });
  const linksOf = (links: readonly SpanContext[] | undefined) => (links && links.length > 0 ? { links: links.map((link) => ({ context: remote(link.traceId, link.spanId) })) } : {});

  const record = ({ span, name, kind, startMs, endMs, attributes, links, error }: FinishedSpan): void => {
    const parent = span.parentSpanId === undefined ? api.ROOT_CONTEXT : api.trace.setSpanContext(api.ROOT_CONTEXT, remote(span.traceId, span.parentSpanId));
    ids.preset(span.traceId, span.spanId);
    const started = tracer.startSpan(name, { kind: kinds[kind], startTime: startMs, attributes, ...linksOf(links) }, parent);
    if (error !== undefined) started.setStatus({ code: api.SpanStatusCode.ERROR, message: error });
    started.end(endMs);
  };

  port.on('message', (message: ToExporter) => {
    if (message.kind === 'spans') {
      for (const finished of message.spans) record(finished);
      post({ kind: 'taken', count: message.spans.length });
    } else {
      void provider.forceFlush().finally(() => post({ kind: 'flushed' }));
    }
  });
  post({ kind: 'ready' });
}
