import type { PoolUsage } from '../db/connection-source.js';
import type { ResponseObserver } from '../http/server.js';
import { registerProcessMetrics } from './process.js';
import { type CounterCell, type HistogramCell, Registry } from './registry.js';

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Batches hold 1 to 64 operations (the store's limit). */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64];
/** The label values of db_operations_total: the store's operations, and how each ended. */
const KINDS = ['read', 'create', 'update', 'delete', 'list'] as const;
const OUTCOMES = ['ok', 'error', 'busy', 'conflict'] as const;
type StoreOperation = (typeof KINDS)[number];
type OperationOutcome = (typeof OUTCOMES)[number];

/** What the store reports (app.ts hands this to the store, whose StoreObserver it satisfies). */
export interface StoreMetrics {
  operation(kind: StoreOperation, outcome: OperationOutcome): void;
  batch(kind: StoreOperation, size: number): void;
}

interface RouteCells {
  duration: HistogramCell;
  byStatus: Map<number | string, CounterCell>;
}

/**
 * The service's metrics under their conventional names, and the observers the HTTP server and the
 * store report to. Recording is a few Map lookups and additions: label strings are built once per
 * new combination of method, route and status, never per request.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests = this.registry.counter('http_requests_total', 'HTTP requests answered, by method, route template and status.', ['method', 'route', 'status']);
  private readonly durations = this.registry.histogram('http_request_duration_seconds', 'Time from a request\'s arrival to the end of its response, in seconds.', ['method', 'route'], DURATION_BUCKETS);
  private readonly byRoute = new Map<string, Map<string, RouteCells>>();
  private readonly operations: Record<StoreOperation, Record<OperationOutcome, CounterCell>>;
  private readonly batchSizes: Partial<Record<StoreOperation, HistogramCell>>;

  constructor(poolUsage: () => PoolUsage) {
    const operations = this.registry.counter('db_operations_total', 'Store operations, by kind and outcome (busy: turned away because too much was waiting; conflict: an email another user has).', ['kind', 'outcome']);
    const batches = this.registry.histogram('db_batch_size', 'Operations coalesced into one database statement, by kind.', ['kind'], BATCH_BUCKETS);
    this.operations = Object.fromEntries(
      KINDS.map((kind) => [kind, Object.fromEntries(OUTCOMES.map((outcome) => [outcome, operations.labels(kind, outcome)]))]),
    ) as Record<StoreOperation, Record<OperationOutcome, CounterCell>>;
    // Deletes are not coalesced: each is its own statement.
    this.batchSizes = Object.fromEntries(
      KINDS.filter((kind) => kind !== 'delete').map((kind) => [kind, batches.labels(kind)]),
    ) as Partial<Record<StoreOperation, HistogramCell>>;
    this.registry.collected('gauge', 'db_pool_connections_in_use', 'Database connections handed out now.', () => poolUsage().inUse);
    this.registry.collected('gauge', 'db_pool_waiting', 'Requests waiting for a database connection now.', () => poolUsage().waiting);
    registerProcessMetrics(this.registry);
  }

  readonly observeResponse: ResponseObserver = (method, route, status, seconds) => {
    let byMethod = this.byRoute.get(route);
    if (!byMethod) this.byRoute.set(route, (byMethod = new Map()));
    let cells = byMethod.get(method);
    if (!cells) byMethod.set(method, (cells = { duration: this.durations.labels(method, route), byStatus: new Map() }));
    let counter = cells.byStatus.get(status);
    if (!counter) cells.byStatus.set(status, (counter = this.requests.labels(method, route, String(status))));
    counter.value++;
    cells.duration.observe(seconds);
  };

  readonly store: StoreMetrics = {
    operation: (kind, outcome) => this.operations[kind][outcome].value++,
    batch: (kind, size) => this.batchSizes[kind]?.observe(size),
  };
}
