import assert from 'node:assert/strict';
import parsePrometheusTextFormat, { type ParsedFamily, type ParsedSample } from 'parse-prometheus-text-format';

/**
 * `/metrics` fetched and read by a real Prometheus text-format parser (it throws on a malformed
 * line). The parser folds a histogram's series together whatever their labels, so histogram
 * samples are also read a second time without their TYPE line, where each `_bucket`, `_sum` and
 * `_count` line is a plain sample keeping its labels: `countOf` reads those.
 */
export async function scrape(url: string): Promise<ParsedFamily[]> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  const text = await res.text();
  const typed = parsePrometheusTextFormat(text);
  const histograms = new Set(typed.filter((found) => found.type === 'HISTOGRAM').map((found) => found.name));
  const untypedLines = text
    .split('\n')
    .filter((line) => !/^# (TYPE|HELP) /.test(line) || !histograms.has(line.split(' ')[2]!))
    .join('\n');
  // Without a TYPE line every change of name starts a new family: series of one name are gathered again.
  const samples = new Map<string, ParsedFamily>();
  for (const found of parsePrometheusTextFormat(untypedLines)) {
    if (!/_(bucket|sum|count)$/.test(found.name)) continue;
    const name = `${found.name}#sample`;
    const known = samples.get(name);
    if (known) known.metrics.push(...found.metrics);
    else samples.set(name, { ...found, name });
  }
  return [...typed, ...samples.values()];
}

export function family(families: ParsedFamily[], name: string): ParsedFamily {
  const found = families.find((candidate) => candidate.name === name);
  assert.ok(found, `no metric ${name}`);
  return found;
}

/** The sample of `name` whose labels include `labels`, or undefined. */
export function sampleOf(families: ParsedFamily[], name: string, labels: Record<string, string> = {}): ParsedSample | undefined {
  return family(families, name).metrics.find((sample) =>
    Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value),
  );
}

/** A counter's or gauge's value; 0 when the series does not exist yet. */
export function valueOf(families: ParsedFamily[], name: string, labels: Record<string, string> = {}): number {
  return Number(sampleOf(families, name, labels)?.value ?? 0);
}

/** A histogram's observation count (its `_count` sample); 0 when the series does not exist yet. */
export function countOf(families: ParsedFamily[], name: string, labels: Record<string, string> = {}): number {
  if (!families.some((found) => found.name === `${name}_count#sample`)) return 0;
  return valueOf(families, `${name}_count#sample`, labels);
}

/** A histogram's cumulative bucket counts by upper bound (`le`), for one series. */
export function bucketsOf(families: ParsedFamily[], name: string, labels: Record<string, string>): Record<string, number> {
  const buckets = family(families, `${name}_bucket#sample`).metrics.filter((sample) =>
    Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value),
  );
  return Object.fromEntries(buckets.map((sample) => [sample.labels!.le!, Number(sample.value)]));
}

/**
 * Every sample Prometheus treats as a counter, by series (`name{labels}`): those of the families
 * typed COUNTER, and every `_bucket`, `_sum` and `_count` of those typed HISTOGRAM. Gauges, known by
 * their TYPE line, are left out.
 */
export function counterSamples(families: ParsedFamily[]): Map<string, number> {
  const types = new Map(families.map((found) => [found.name, found.type]));
  const samples = new Map<string, number>();
  for (const found of families) {
    const name = found.name.replace(/#sample$/, '');
    const counted = found.type === 'COUNTER' || (name !== found.name && types.get(name.replace(/_(bucket|sum|count)$/, '')) === 'HISTOGRAM');
    if (!counted) continue;
    for (const sample of found.metrics) samples.set(seriesName(name, sample.labels), Number(sample.value));
  }
  return samples;
}

/** The names of the families typed GAUGE. */
export function gaugeNames(families: ParsedFamily[]): string[] {
  return families.filter((found) => found.type === 'GAUGE').map((found) => found.name);
}

function seriesName(name: string, labels: Record<string, string> = {}): string {
  const pairs = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  return `${name}{${pairs.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(',')}}`;
}
