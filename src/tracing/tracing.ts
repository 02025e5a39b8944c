import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TracingSettings } from '../config/tracing-settings.js';
import type { Logger } from '../log/logger.js';
import { buildInfo } from '../metrics/build-info.js';
import type { Registry } from '../metrics/registry.js';
import type { AttributeNames, FinishedSpan } from './finished-span.js';
import { startSpanExport, type SpanExport } from './otel/span-export.js';
import { exportStatementsTo } from './statement-spans.js';
import { continueTrace, type SpanContext } from './trace-context.js';

/** A request's server span: HTTP's stable semantic conventions. */
const SERVER_SPAN: AttributeNames = ['http.request.method', 'http.route', 'url.path', 'url.scheme', 'http.response.status_code', 'server.port', 'user_agent.original', 'network.protocol.version'];

/** A collector that fails is said once a minute at most, with what was dropped meanwhile. */
const WARN_EVERY_MS = 60_000;

/** Spans exported over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT): what the HTTP server, the statements and the webhooks report to. */
export interface Tracing {
  /** This service's span for a request, sampled as OTEL_TRACES_SAMPLER says. */
  startSpan(req: IncomingMessage): SpanContext;
  /** A request's server span, once its response is finished (or aborted). */
  endSpan(span: SpanContext, req: IncomingMessage, _res: ServerResponse, route: string, status: number | 'aborted', startedAtMs: number, elapsedMs: number): void;
  record(finished: FinishedSpan): void;
  /** Adds the export's counters to `/metrics`. */
  registerMetrics(registry: Registry): void;
  /** Exports what is queued, then stops: a graceful stop's last step. */
  stop(): Promise<void>;
}

let active: Tracing | undefined;

/** The process's span export, when one is configured: webhook attempts report to it. */
export function activeTracing(): Tracing | undefined {
  return active;
}

/** Loads the OpenTelemetry packages and starts exporting; rejects with a one-line reason when they are missing. */
export async function startTracing(settings: TracingSettings, logger: Logger): Promise<Tracing> {
  let exported = 0;
  let dropped = 0;
  let droppedSinceWarning = 0;
  let lastWarningAt = -Infinity;
  const exporter: SpanExport = await startSpanExport(settings, buildInfo().version, {
    exported: (count) => {
      exported += count;
    },
    dropped: (count, reason) => {
      dropped += count;
      droppedSinceWarning += count;
      if (Date.now() - lastWarningAt < WARN_EVERY_MS) return;
      lastWarningAt = Date.now();
      logger.warn('trace spans dropped: the collector did not take them', { dropped: droppedSinceWarning, reason, endpoint: settings.url });
      droppedSinceWarning = 0;
    },
  });
  exportStatementsTo((finished) => exporter.record(finished));
  const tracing: Tracing = {
    startSpan: (req) => continueTrace(req.headers.traceparent, req.headers.tracestate, exporter.decide),
    endSpan(span, req, _res, route, status, startedAtMs, elapsedMs) {
      const code = status === 'aborted' ? undefined : status;
      const url = req.url ?? '/';
      const query = url.indexOf('?');
      const method = req.method ?? 'GET';
      exporter.record({
        span,
        name: route === 'unmatched' ? method : `${method} ${route}`,
        kind: 'server',
        startMs: startedAtMs,
        endMs: startedAtMs + elapsedMs,
        names: SERVER_SPAN,
        values: [
          method,
          route === 'unmatched' ? undefined : route,
          query === -1 ? url : url.slice(0, query),
          'encrypted' in req.socket ? 'https' : 'http',
          code,
          req.socket.localPort ?? 0,
          req.headers['user-agent'] || undefined,
          req.httpVersion,
        ],
        ...(code === undefined ? { error: 'aborted' } : code >= 500 ? { error: String(code) } : {}),
      });
    },
    record: (finished) => exporter.record(finished),
    registerMetrics(registry) {
      registry.collected('counter', 'tracing_spans_exported_total', 'Spans the OTLP collector took.', () => exported);
      registry.collected('counter', 'tracing_spans_dropped_total', 'Spans dropped: the export queue was full, or the collector refused them or did not answer in time.', () => dropped);
    },
    async stop() {
      exportStatementsTo(undefined);
      if (active === tracing) active = undefined;
      await exporter.shutdown().catch(() => {});
    },
  };
  active = tracing;
  return tracing;
}
