/**
 * A small metrics registry: counters, gauges and histograms with labels, read as a plain-data
 * snapshot that can cross process boundaries (IPC) and be merged with other processes' snapshots.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram';

/** How one metric of several processes becomes the service's: summed, or the highest (a latency). */
export type MergeRule = 'sum' | 'max';

export interface Series {
  labels: string[];
  value: number;
}

export interface HistogramSeries {
  labels: string[];
  /** Observations per bucket, not cumulative; one more entry than `buckets`, for +Inf. */
  counts: number[];
  sum: number;
}

export interface MetricSnapshot {
  name: string;
  help: string;
  type: MetricType;
  labelNames: string[];
  merge: MergeRule;
  /** Histograms only: the upper bounds of the buckets, ascending. */
  buckets?: number[];
  series: Array<Series | HistogramSeries>;
}

export type Snapshot = MetricSnapshot[];

export class CounterCell {
  value = 0;
  constructor(readonly labels: string[]) {}

  inc(by = 1): void {
    this.value += by;
  }
}

export class HistogramCell {
  readonly counts: number[];
  sum = 0;

  constructor(
    readonly labels: string[],
    private readonly buckets: readonly number[],
  ) {
    this.counts = new Array<number>(buckets.length + 1).fill(0);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.buckets.length && value > this.buckets[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
  }
}

/** A labelled metric: one cell per combination of label values, made on first use. */
class Family<Cell extends { labels: string[] }> {
  private readonly cells = new Map<string, Cell>();

  constructor(private readonly make: (labels: string[]) => Cell) {}

  /** The cell of these label values. Hot paths keep the cell rather than calling this per event. */
  labels(...values: string[]): Cell {
    const key = values.join('\u0000');
    let cell = this.cells.get(key);
    if (!cell) this.cells.set(key, (cell = this.make(values)));
    return cell;
  }

  all(): Cell[] {
    return [...this.cells.values()];
  }
}

export type Counter = Family<CounterCell>;
export type Histogram = Family<HistogramCell>;

interface Definition extends Omit<MetricSnapshot, 'series'> {
  read(): Promise<Array<Series | HistogramSeries>>;
}

export class Registry {
  private readonly definitions: Definition[] = [];

  counter(name: string, help: string, labelNames: string[]): Counter {
    const family = new Family((labels) => new CounterCell(labels));
    this.define({ name, help, type: 'counter', labelNames, merge: 'sum', read: async () => family.all().map(series) });
    return family;
  }

  histogram(name: string, help: string, labelNames: string[], buckets: number[]): Histogram {
    const family = new Family((labels) => new HistogramCell(labels, buckets));
    const read = async () => family.all().map(({ labels, counts, sum }) => ({ labels, counts: counts.slice(), sum }));
    this.define({ name, help, type: 'histogram', labelNames, merge: 'sum', buckets, read });
    return family;
  }

  /** A metric without labels whose value is read when a snapshot is taken (memory, pool use, ...). */
  collected(type: 'counter' | 'gauge', name: string, help: string, collect: () => number | Promise<number>, merge: MergeRule = 'sum'): void {
    this.define({ name, help, type, labelNames: [], merge, read: async () => [{ labels: [], value: await collect() }] });
  }

  /** A gauge with labels whose series are read when a snapshot is taken: as many as `collect` gives, none at times. */
  collectedGauge(name: string, help: string, labelNames: string[], collect: () => Series[], merge: MergeRule = 'sum'): void {
    this.define({ name, help, type: 'gauge', labelNames, merge, read: async () => collect().map(({ labels, value }) => ({ labels: labels.slice(), value })) });
  }

  async snapshot(): Promise<Snapshot> {
    return Promise.all(
      this.definitions.map(async ({ read, ...metric }) => ({ ...metric, series: await read() })),
    );
  }

  private define(definition: Definition): void {
    if (this.definitions.some((known) => known.name === definition.name)) throw new Error(`metric ${definition.name} defined twice`);
    this.definitions.push(definition);
  }
}

function series({ labels, value }: CounterCell): Series {
  return { labels, value };
}

/**
 * The snapshots of several processes as one: series with the same labels are added up (or the
 * highest kept, for `max` metrics); a metric only some processes have is kept as it is.
 */
export function mergeSnapshots(snapshots: Snapshot[]): Snapshot {
  const merged = new Map<string, MetricSnapshot & { byLabels: Map<string, Series | HistogramSeries> }>();
  for (const snapshot of snapshots) {
    for (const metric of snapshot) {
      let target = merged.get(metric.name);
      if (!target) merged.set(metric.name, (target = { ...metric, series: [], byLabels: new Map() }));
      for (const one of metric.series) {
        const key = one.labels.join('\u0000');
        const known = target.byLabels.get(key);
        if (!known) target.byLabels.set(key, copy(one));
        else combine(known, one, target.merge);
      }
    }
  }
  return [...merged.values()].map(({ byLabels, ...metric }) => ({ ...metric, series: [...byLabels.values()] }));
}

function copy(one: Series | HistogramSeries): Series | HistogramSeries {
  return 'counts' in one ? { ...one, counts: one.counts.slice() } : { ...one };
}

function combine(into: Series | HistogramSeries, one: Series | HistogramSeries, rule: MergeRule): void {
  if ('counts' in into && 'counts' in one) {
    into.counts.forEach((_, i) => (into.counts[i]! += one.counts[i] ?? 0));
    into.sum += one.sum;
  } else if ('value' in into && 'value' in one) {
    into.value = rule === 'max' ? Math.max(into.value, one.value) : into.value + one.value;
  }
}
