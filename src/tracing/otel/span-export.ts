import type { TracingSettings } from '../../config/tracing-settings.js';
import { sampler, type SampleDecision } from '../sampler.js';
import type { SpanContext } from '../trace-context.js';
import { ExportQueue, type QueueLimits } from './export-queue.js';

export type SpanKindName = 'server' | 'client';
export type SpanAttributes = Record<string, string | number | boolean>;

/** One finished span to export: ours, with its ids already handed out (the traceparent the client saw). */
export interface FinishedSpan {
  span: SpanContext;
  name: string;
  kind: SpanKindName;
  startMs: number;
  endMs: number;
  attributes: SpanAttributes;
  /** Other spans it served (a batched statement: every request in the batch). */
  links?: readonly SpanContext[];
  /** Set for a failure (a 5xx, a statement's error, a failed attempt). */
  error?: string;
}

/** What the rest of the service uses: a sampling decision per new trace, and finished spans handed over. */
export interface SpanExport {
  readonly decide: SampleDecision;
  record(finished: FinishedSpan): void;
  /** Sends what is queued (a graceful stop); bounded by the exporter's timeout. */
  shutdown(): Promise<void>;
}

export interface ExportCounters {
  dropped(count: number, reason: string): void;
  exported(count: number): void;
}

/** The packages are optional dependencies: loaded only when export is configured. */
export class MissingTracingPackages extends Error {}

/**
 * OTLP/HTTP export with the official OpenTelemetry SDK and exporters (protobuf or JSON). Spans are
 * made after the fact with the ids this service already sent in `traceparent`: the SDK's id
 * generator is told each span's ids just before it starts the span.
 */
export async function startSpanExport(settings: TracingSettings, version: string, counters: ExportCounters, limits?: QueueLimits): Promise<SpanExport> {
  let modules;
  try {
    modules = await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/resources'),
      settings.protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
    ]);
  } catch (error) {
    throw new MissingTracingPackages(
      `OTEL_EXPORTER_OTLP_ENDPOINT needs the optional @opentelemetry packages, which are not installed (${(error as Error).message.split('\n')[0]}): run npm install without --omit=optional`,
    );
  }
  const [api, sdk, resources, otlp] = modules;
  const ids = new PresetIds(new sdk.RandomIdGenerator());
  const exporter = new otlp.OTLPTraceExporter({ url: settings.url, headers: settings.headers, timeoutMillis: 10_000, concurrencyLimit: 1 });
  const queue = new ExportQueue(exporter, counters.dropped, counters.exported, limits);
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': version }),
    sampler: new sdk.AlwaysOnSampler(),
    idGenerator: ids,
    spanProcessors: [queue],
  });
  const tracer = provider.getTracer('user-service', version);
  const kinds = { server: api.SpanKind.SERVER, client: api.SpanKind.CLIENT };
  const remote = (span: SpanContext) => ({ traceId: span.traceId, spanId: span.spanId, traceFlags: api.TraceFlags.SAMPLED, isRemote: true });
  return {
    decide: sampler(settings.sampler, settings.ratio),
    record({ span, name, kind, startMs, endMs, attributes, links, error }) {
      const parent = span.parentSpanId === undefined ? api.ROOT_CONTEXT : api.trace.setSpanContext(api.ROOT_CONTEXT, remote({ ...span, spanId: span.parentSpanId }));
      ids.preset(span.traceId, span.spanId);
      const started = tracer.startSpan(name, { kind: kinds[kind], startTime: startMs, attributes, ...(links && links.length > 0 ? { links: links.map((link) => ({ context: remote(link) })) } : {}) }, parent);
      if (error !== undefined) started.setStatus({ code: api.SpanStatusCode.ERROR, message: error });
      started.end(endMs);
    },
    shutdown: () => provider.shutdown(),
  };
}

/** Hands the SDK the ids this service chose for the next span; random ones otherwise. */
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
