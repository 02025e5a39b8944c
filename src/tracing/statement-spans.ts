import diagnostics from 'node:diagnostics_channel';
import { currentScope, type SpanScope } from './current-span.js';
import { childOf } from './trace-context.js';
import type { FinishedSpan } from './otel/span-export.js';

/** What mysql2 publishes for each query and execute (mysql2 3.20 and later, on diagnostics_channel). */
interface StatementMessage {
  query?: string;
  database?: string;
  serverAddress?: string;
  serverPort?: number;
  error?: unknown;
}

const STARTED = Symbol('statement span');
type Tracked = StatementMessage & { [STARTED]?: { scope: SpanScope; startMs: number; failed?: string } };

const CHANNELS = ['mysql2:query', 'mysql2:execute'] as const;
const CONNECT_CHANNEL = 'mysql2:connect';
/** Longer statement texts (a batch's repeated placeholders) are cut: their shape is clear well before. */
const MAX_TEXT = 2048;

/**
 * A client span for every statement run as part of a sampled request (or of a batch serving such
 * requests, linked to each): its text without values, its database and server. Subscribed only
 * while spans are exported; unsubscribed, mysql2 skips the publishing altogether.
 */
export function traceStatements(record: (span: FinishedSpan) => void): () => void {
  // MariaDB or MySQL, as a connection's greeting says (`10.11.6-MariaDB`); the service's own statements are MariaDB's.
  let dbSystem = 'mariadb';
  const greeted = {
    asyncEnd(message: unknown) {
      const version = (message as { result?: { serverVersion?: unknown } }).result?.serverVersion;
      if (typeof version === 'string') dbSystem = /mariadb/i.test(version) ? 'mariadb' : 'mysql';
    },
  };
  const handlers = {
    start(message: unknown) {
      const scope = currentScope();
      if (scope !== undefined) (message as Tracked)[STARTED] = { scope, startMs: nowMs() };
    },
    error(message: unknown) {
      const started = (message as Tracked)[STARTED];
      if (started) started.failed = describe((message as Tracked).error);
    },
    asyncEnd(message: unknown) {
      const tracked = message as Tracked;
      const started = tracked[STARTED];
      if (!started) return;
      tracked[STARTED] = undefined;
      const text = sanitizedStatement(tracked.query ?? '');
      const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
      record({
        span: childOf(started.scope.parent),
        name: tracked.database ? `${operation} ${tracked.database}` : operation,
        kind: 'client',
        startMs: started.startMs,
        endMs: nowMs(),
        attributes: {
          'db.system.name': dbSystem,
          'db.namespace': tracked.database ?? '',
          'db.operation.name': operation,
          'db.query.text': text,
          'server.address': tracked.serverAddress ?? '',
          ...(tracked.serverPort === undefined ? {} : { 'server.port': tracked.serverPort }),
        },
        links: started.scope.links,
        ...(started.failed === undefined ? {} : { error: started.failed }),
      });
    },
  };
  const channels = CHANNELS.map((name) => diagnostics.tracingChannel(name));
  const connects = diagnostics.tracingChannel(CONNECT_CHANNEL);
  for (const channel of channels) channel.subscribe(handlers as Parameters<typeof channel.subscribe>[0]);
  connects.subscribe(greeted as Parameters<typeof connects.subscribe>[0]);
  return () => {
    for (const channel of channels) channel.unsubscribe(handlers as Parameters<typeof channel.subscribe>[0]);
    connects.unsubscribe(greeted as Parameters<typeof connects.subscribe>[0]);
  };
}

/** A statement's text with every literal value (quoted strings, numbers, hex) replaced by `?`. */
export function sanitizedStatement(sql: string): string {
  const text = sql.replace(/'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*"|\b0x[0-9a-f]+\b|(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?\b/gi, '?');
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

function describe(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return typeof code === 'string' ? code : typeof message === 'string' ? message.slice(0, 200) : 'failed';
}

function nowMs(): number {
  return performance.timeOrigin + performance.now();
}
