import type { SamplerName } from '../config/tracing-settings.js';

/** Decides whether a request's span is recorded: `parentSampled` is the caller's flag, undefined for a new trace. */
export type SampleDecision = (traceId: string, parentSampled: boolean | undefined) => boolean;

/**
 * OpenTelemetry's samplers by their OTEL_TRACES_SAMPLER names. The ratio is decided by the trace
 * id's last 14 hex digits (56 random bits), so every service that applies the same ratio to one
 * trace decides alike.
 */
export function sampler(name: SamplerName, ratio: number): SampleDecision {
  const byRatio = (traceId: string): boolean => ratio >= 1 || parseInt(traceId.slice(18), 16) < ratio * 2 ** 56;
  switch (name) {
    case 'always_on':
      return () => true;
    case 'always_off':
      return () => false;
    case 'traceidratio':
      return (traceId) => byRatio(traceId);
    case 'parentbased_always_on':
      return (_traceId, parent) => parent ?? true;
    case 'parentbased_always_off':
      return (_traceId, parent) => parent ?? false;
    case 'parentbased_traceidratio':
      return (traceId, parent) => parent ?? byRatio(traceId);
  }
}
