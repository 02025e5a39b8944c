import type { HistogramSeries, MetricSnapshot, Series, Snapshot } from './registry.js';

/** The Prometheus text exposition format, version 0.0.4. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export function exposition(snapshot: Snapshot): string {
  const lines: string[] = [];
  for (const metric of snapshot) {
    lines.push(`# HELP ${metric.name} ${metric.help.replaceAll('\\', '\\\\').replaceAll('\n', '\\n')}`);
    lines.push(`# TYPE ${metric.name} ${metric.type}`);
    for (const one of metric.series) {
      if ('counts' in one) lines.push(...histogramLines(metric, one));
      else lines.push(`${metric.name}${labelSet(metric.labelNames, (one as Series).labels)} ${number(one.value)}`);
    }
  }
  return lines.join('\n') + '\n';
}

function histogramLines(metric: MetricSnapshot, one: HistogramSeries): string[] {
  const names = [...metric.labelNames, 'le'];
  const lines: string[] = [];
  let cumulative = 0;
  const bounds = [...(metric.buckets ?? []).map(number), '+Inf'];
  bounds.forEach((bound, i) => {
    cumulative += one.counts[i] ?? 0;
    lines.push(`${metric.name}_bucket${labelSet(names, [...one.labels, bound])} ${cumulative}`);
  });
  const labels = labelSet(metric.labelNames, one.labels);
  lines.push(`${metric.name}_sum${labels} ${number(one.sum)}`, `${metric.name}_count${labels} ${cumulative}`);
  return lines;
}

function labelSet(names: string[], values: string[]): string {
  if (names.length === 0) return '';
  return `{${names.map((name, i) => `${name}="${escapeLabel(values[i] ?? '')}"`).join(',')}}`;
}

function escapeLabel(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

function number(value: number): string {
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
