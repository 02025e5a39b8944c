import { parseArgs } from 'node:util';
import type { Runner } from './runner.js';
import { scenarios } from './workload.js';

export type ServiceLog = 'null' | 'pipe' | 'off';
/** The HTTP load generator; `auto` is wrk when it is installed, else autocannon. */
export type LoadGenerator = 'auto' | 'wrk' | 'autocannon';
/** What fetches the list in memory mode; `auto` is curl when it is installed, else Node's HTTP client. */
export type ListClient = 'auto' | 'curl' | 'node';

export interface BenchOptions {
  mode: 'throughput' | 'memory' | 'cluster' | 'finding' | 'online-index' | 'webhooks' | 'streams' | 'limits' | 'startup' | 'tracing' | 'instructions';
  durationSec: number;
  connections: number;
  /** Alternating runs of each side; the median is reported. */
  repeat: number;
  /** Seconds of unmeasured load before each measurement, so every side runs JIT-compiled code. */
  warmupSec: number;
  scenarios: string[];
  /** Where the service's request log goes: /dev/null, a pipe the benchmark drains, or nowhere (logger off). */
  serviceLog: ServiceLog;
  /** Users loaded for the memory, finding and online-index modes. */
  rows: number;
  /** Finding mode: how many times each request is timed; the median is reported. */
  tries: number;
  load: LoadGenerator;
  listClient: ListClient;
  /** Run the service under `node --cpu-prof`. */
  profile: boolean;
  /** The service's WORKERS: HTTP worker processes. */
  workers: number;
  /** Run the service with METRICS=on and scrape /metrics once a second while it is measured. */
  metrics: boolean;
  /** A commit whose service is measured too, alternating with this one's (throughput and memory modes). */
  baseline: string | undefined;
  /** Throughput mode: the service (and the baseline) with EVENTS off, on, or both side by side. */
  events: 'off' | 'on' | 'both';
  /** Streams mode: the steps, `<listeners>[@<writes per second>]`, comma-separated. */
  listeners: string;
  /** Webhooks mode: counts of API endpoints to measure, each on a fresh service (empty: WEBHOOK_URLS as before). */
  endpoints: number[];
  /** Throughput mode with events on: WEBHOOK_URLS of a local receiver on every side (0 or 1). */
  webhookUrls: number;
  /** Throughput mode with events on: endpoints made through the API before the sides of this build start. */
  apiEndpoints: number;
  /** Streams mode: writes per second of a step that names none. */
  rate: number;
  /** Throughput mode: db-direct also at these concurrencies (loops, each with a connection), its best run reported. */
  directConcurrency: number[];
  /** Limits mode: seconds of the accuracy runs. */
  accuracySec: number;
  /** Instructions mode: requests per count. */
  requests: number;
  /** Instructions mode: also count this build over HTTPS. */
  tls: boolean;
  /** Instructions mode: also count this build exporting spans at this sampling ratio. */
  exportRatio: number | undefined;
  runner: Runner;
}

export const usage = `Usage: npx tsx bench/run.ts [options]
  --mode throughput|memory|cluster|finding|online-index|webhooks|streams|limits|startup|tracing|instructions
                             what to measure (default throughput);
                             cluster: the scenarios on one Galera node and on a 3-node Galera
                             cluster, in the same run; finding: the latency of each way of finding
                             users, one request at a time, on --rows users; online-index: the
                             finding indexes rebuilt by db:migrate on --rows users under a steady
                             load of reads and writes, every answer recorded; webhooks: creates
                             delivered to a local receiver, at a steady pace then saturating:
                             deliveries per second and the delay from commit to delivery; streams:
                             change-event streams at scale (see --listeners); limits: RATE_LIMIT
                             counted per instance and shared (LIMITS_SHARED) side by side, then one
                             client through HAProxy to three instances, accepted per window;
                             startup: a start on the contract's bare table of --rows users, a read and
                             a create every 20 ms from the first answer: refusals, flaps, index builds;
                             tracing: nothing configured (and --baseline), OTLP export at ratio 0.1
                             and 1.0, HTTPS keep-alive, then new HTTP and HTTPS connections per second;
                             instructions: the service's instructions per request under valgrind's
                             callgrind (and --baseline's), one request at a time: a cost that does not
                             move with the machine's load
  --requests <n>             instructions mode: requests per count (default 2000)
  --tls                      instructions mode: also count this build over HTTPS (TLS 1.3, keep-alive),
                             against itself over plain HTTP, on get-one
  --export <ratio>           instructions mode: also count this build exporting spans over OTLP to a
                             local endpoint, sampled at this ratio (0-1)
  --accuracy-seconds <s>     limits mode: seconds of each accuracy run (default 30)
  --workers <n>              the service's WORKERS (default 1)
  --duration <s>             seconds per measurement (default 5)
  --connections <n>          concurrent connections / loops (default 32)
  --warmup <s>               unmeasured seconds before each measurement (default 1)
  --repeat <n>               alternating runs of each side, the median reported (default 3)
  --scenarios <a,b>          subset of: ${scenarios.map((s) => s.name).join(', ')}
  --service-log null|pipe|off  service stdout to /dev/null, to a drained pipe, or logger off (default null)
  --load auto|wrk|autocannon HTTP load generator; auto is wrk when installed (default auto)
  --rows <n>                 users loaded in memory, finding and online-index modes (default 1000000)
  --tries <n>                finding mode: times each request is timed, the median reported (default 7)
  --list-client auto|curl|node  what fetches the list in memory mode; auto is curl when installed (default auto)
  --profile                  write a CPU profile of the service to bench/results/profiles/
  --metrics                  service with METRICS=on, /metrics scraped every second while it is measured
  --baseline <git-ref>       throughput and memory modes: also measure the service as of that commit,
                             alternating with this one in the same run (before/after figures; in
                             throughput mode an x baseline column)
  --events off|on|both       throughput mode: the service with EVENTS off (default), on, or both measured
                             in the same rounds (an x events off column: events on over events off)
  --listeners <steps>        streams mode: how many streams to open, step by step, each optionally
                             @writes/s (default 10,1000,2000,10000@2); needs an open-files limit above
                             the largest (\`ulimit -n\`)
  --endpoints <n,n>          webhooks mode: instead of WEBHOOK_URLS, this many endpoints made through the
                             API, each count on a fresh service (e.g. 1,10,100), creates at 5/s: the time
                             from a 201 to the last endpoint's acknowledgement, statements per delivery
  --webhook-urls 0|1         throughput mode with --events on: every side delivers to a local receiver
                             named in WEBHOOK_URLS
  --api-endpoints <n>        throughput mode with --events on: n endpoints made through the API, at the
                             same receiver, delivered to by the sides of this build instead of
                             --webhook-urls' one (a baseline without the API knows none of them, and
                             keeps WEBHOOK_URLS: n endpoints here against one before)
  --rate <n>                 streams mode: creates per second of a step that names none (default 20)
  --direct-best <n,n>        throughput mode: db-direct also run at these concurrencies (loops, each
                             with a connection of its own), and the best reported as the bare client's
                             ceiling (e.g. 4,8,16,32)
  --runner build|tsx         compile with tsc and run plain node, as in production (default), or run through tsx`;

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      mode: { type: 'string', default: 'throughput' },
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '32' },
      warmup: { type: 'string', default: '1' },
      repeat: { type: 'string', default: '3' },
      scenarios: { type: 'string' },
      'service-log': { type: 'string', default: 'null' },
      load: { type: 'string', default: 'auto' },
      rows: { type: 'string', default: '1000000' },
      tries: { type: 'string', default: '7' },
      'list-client': { type: 'string', default: 'auto' },
      profile: { type: 'boolean', default: false },
      metrics: { type: 'boolean', default: false },
      baseline: { type: 'string' },
      events: { type: 'string', default: 'off' },
      listeners: { type: 'string', default: '10,1000,2000,10000@2' },
      endpoints: { type: 'string' },
      'webhook-urls': { type: 'string', default: '0' },
      'api-endpoints': { type: 'string', default: '0' },
      rate: { type: 'string', default: '20' },
      'direct-best': { type: 'string' },
      'accuracy-seconds': { type: 'string', default: '30' },
      requests: { type: 'string', default: '2000' },
      tls: { type: 'boolean', default: false },
      export: { type: 'string' },
      runner: { type: 'string', default: 'build' },
      workers: { type: 'string', default: '1' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const names = scenarios.map((s) => s.name);
  const chosen = values.scenarios ? values.scenarios.split(',').map((name) => name.trim()) : values.mode === 'limits' ? ['get-one', 'mixed'] : names;
  const unknown = chosen.filter((name) => !names.includes(name));
  if (unknown.length > 0) fail(`unknown scenario(s): ${unknown.join(', ')}`);
  const workers = Math.round(positive(values.workers, 'workers'));
  if (workers > 1 && values['service-log'] === 'off') fail('--workers above 1 needs the real entry point: --service-log null or pipe');
  if (values.baseline !== undefined && !['throughput', 'memory', 'startup', 'tracing', 'instructions'].includes(values.mode)) fail('--baseline is for the throughput, memory, startup, tracing and instructions modes');
  if (values.events !== 'off' && values.mode !== 'throughput') fail('--events is for the throughput mode');
  if (values.tls && values.mode !== 'instructions') fail('--tls is for the instructions mode');
  if (values.export !== undefined && values.mode !== 'instructions') fail('--export is for the instructions mode');
  if ((values['webhook-urls'] !== '0' || values['api-endpoints'] !== '0') && (values.mode !== 'throughput' || values.events !== 'on')) {
    fail('--webhook-urls and --api-endpoints are for the throughput mode with --events on');
  }
  if (values.baseline !== undefined && values['service-log'] === 'off') fail('--baseline needs the real entry point on both sides: --service-log null or pipe');
  return {
    mode: oneOf(values.mode, ['throughput', 'memory', 'cluster', 'finding', 'online-index', 'webhooks', 'streams', 'limits', 'startup', 'tracing', 'instructions'] as const, 'mode'),
    durationSec: positive(values.duration, 'duration'),
    connections: Math.round(positive(values.connections, 'connections')),
    warmupSec: positive(values.warmup, 'warmup', true),
    repeat: Math.round(positive(values.repeat, 'repeat')),
    scenarios: chosen,
    serviceLog: oneOf(values['service-log'], ['null', 'pipe', 'off'] as const, 'service-log'),
    load: oneOf(values.load, ['auto', 'wrk', 'autocannon'] as const, 'load'),
    rows: Math.round(positive(values.rows, 'rows')),
    tries: Math.round(positive(values.tries, 'tries')),
    listClient: oneOf(values['list-client'], ['auto', 'curl', 'node'] as const, 'list-client'),
    profile: values.profile,
    metrics: values.metrics,
    baseline: values.baseline,
    events: oneOf(values.events, ['off', 'on', 'both'] as const, 'events'),
    listeners: values.listeners,
    endpoints: endpointCounts(values.endpoints, values.mode),
    webhookUrls: oneOf(values['webhook-urls'], ['0', '1'] as const, 'webhook-urls') === '1' ? 1 : 0,
    apiEndpoints: endpointCounts(values['api-endpoints'] === '0' ? undefined : values['api-endpoints'], 'webhooks')[0] ?? 0,
    rate: positive(values.rate, 'rate'),
    directConcurrency: (values['direct-best'] ?? '').split(',').filter(Boolean).map((each) => Math.round(positive(each, 'direct-best'))),
    accuracySec: Math.round(positive(values['accuracy-seconds'], 'accuracy-seconds')),
    requests: wholeCount(values.requests, 'requests'),
    tls: values.tls,
    exportRatio: values.export === undefined ? undefined : ratio(values.export, 'export'),
    runner: oneOf(values.runner, ['build', 'tsx'] as const, 'runner'),
    workers,
  };
}

function positive(raw: string, name: string, zeroAllowed = false): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !zeroAllowed)) fail(`--${name} must be a positive number`);
  return value;
}

/** A positive number of things: one at least, after rounding (0.2 requests would be none). */
function wholeCount(raw: string, name: string): number {
  const count = Math.round(positive(raw, name));
  if (count < 1) fail(`--${name} must be a positive number`);
  return count;
}

/** A sampling ratio: a number from 0 to 1. */
function ratio(raw: string, name: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) fail(`--${name} must be a ratio from 0 to 1`);
  return value;
}

function oneOf<T extends string>(raw: string, allowed: readonly T[], name: string): T {
  if (!(allowed as readonly string[]).includes(raw)) fail(`--${name} must be one of ${allowed.join(', ')}`);
  return raw as T;
}

function fail(message: string): never {
  console.error(`${message}\n\n${usage}`);
  process.exit(2);
}

/** `--endpoints 1,10,100`: whole counts from 1 to 1000, for the webhooks mode. */
function endpointCounts(raw: string | undefined, mode: string | undefined): number[] {
  if (raw === undefined) return [];
  if (mode !== 'webhooks') fail('--endpoints is for the webhooks mode');
  const counts = raw.split(',').map(Number);
  if (counts.some((count) => !Number.isInteger(count) || count < 1 || count > 1000)) fail(`--endpoints takes counts from 1 to 1000, got "${raw}"`);
  return counts;
}
