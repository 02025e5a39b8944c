import { ConfigError, positive, text, type Env } from './env-values.js';

export const samplerNames = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type SamplerName = (typeof samplerNames)[number];

/** OpenTelemetry's own variables (the SDK's names and meanings): span export over OTLP/HTTP. */
export interface TracingSettings {
  /** Where spans are POSTed: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, or OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  /** OTEL_EXPORTER_OTLP_HEADERS (`key=value,...`, values percent-decoded): a collector's API key, say. */
  headers: Record<string, string>;
  serviceName: string;
  sampler: SamplerName;
  /** OTEL_TRACES_SAMPLER_ARG for the ratio samplers, 0-1. */
  ratio: number;
  batching: ExportBatching;
}

/** How ended spans wait for export: the SDK's batch span processor variables (OTEL_BSP_*), its defaults. */
export interface ExportBatching {
  /** OTEL_BSP_MAX_QUEUE_SIZE: ended spans waiting for export; beyond it a span is dropped rather than kept. */
  maxQueued: number;
  /** OTEL_BSP_MAX_EXPORT_BATCH_SIZE: spans per export request. */
  batchSize: number;
  /** OTEL_BSP_SCHEDULE_DELAY: a partial batch goes out this long after its first span ended. */
  delayMs: number;
}

export const defaultBatching: ExportBatching = { maxQueued: 2048, batchSize: 512, delayMs: 5000 };

/** Undefined without an endpoint: trace context is still passed on, nothing is exported. */
export function tracingSettings(env: Env): TracingSettings | undefined {
  const tracesEndpoint = text(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', '');
  const endpoint = text(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', '');
  if (tracesEndpoint === '' && endpoint === '') return undefined;
  const url = tracesEndpoint !== '' ? checkedUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesEndpoint) : `${checkedUrl('OTEL_EXPORTER_OTLP_ENDPOINT', endpoint).replace(/\/+$/, '')}/v1/traces`;
  const protocol = text(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', text(env, 'OTEL_EXPORTER_OTLP_PROTOCOL', 'http/protobuf'));
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new ConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (grpc is not supported), got "${protocol}"`);
  }
  const sampler = text(env, 'OTEL_TRACES_SAMPLER', 'parentbased_traceidratio');
  if (!(samplerNames as readonly string[]).includes(sampler)) throw new ConfigError(`OTEL_TRACES_SAMPLER must be one of ${samplerNames.join(', ')}, got "${sampler}"`);
  const ratioText = text(env, 'OTEL_TRACES_SAMPLER_ARG', '1');
  const ratio = Number(ratioText);
  if (!/^\d*\.?\d+$/.test(ratioText) || !(ratio >= 0 && ratio <= 1)) throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "${ratioText}"`);
  return {
    url,
    protocol,
    headers: otlpHeaders(text(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', text(env, 'OTEL_EXPORTER_OTLP_HEADERS', ''))),
    serviceName: text(env, 'OTEL_SERVICE_NAME', 'user-service'),
    sampler: sampler as SamplerName,
    ratio,
    batching: exportBatching(env),
  };
}

function exportBatching(env: Env): ExportBatching {
  const batching = {
    maxQueued: positive(env, 'OTEL_BSP_MAX_QUEUE_SIZE', defaultBatching.maxQueued),
    batchSize: positive(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', defaultBatching.batchSize),
    delayMs: positive(env, 'OTEL_BSP_SCHEDULE_DELAY', defaultBatching.delayMs),
  };
  if (batching.batchSize > batching.maxQueued) {
    throw new ConfigError(`OTEL_BSP_MAX_EXPORT_BATCH_SIZE (${batching.batchSize}) must not exceed OTEL_BSP_MAX_QUEUE_SIZE (${batching.maxQueued})`);
  }
  return batching;
}

function checkedUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an http or https URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must be an http or https URL, got "${value}"`);
  return value;
}

/** `api-key=abc,x-team=core%20api`: the W3C Baggage-like list the OpenTelemetry SDKs read. */
function otlpHeaders(list: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const item of list.split(',')) {
    if (item.trim() === '') continue;
    const eq = item.indexOf('=');
    if (eq <= 0) throw new ConfigError('OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs separated by commas');
    try {
      headers[decodeURIComponent(item.slice(0, eq).trim())] = decodeURIComponent(item.slice(eq + 1).trim());
    } catch {
      throw new ConfigError('OTEL_EXPORTER_OTLP_HEADERS holds a badly percent-encoded value');
    }
  }
  return headers;
}
