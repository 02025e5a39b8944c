import diagnostics from 'node:diagnostics_channel';
import type { SpanScope } from './span-scope.js';
import { childOf } from './trace-context.js';
import type { AttributeNames, FinishedSpan } from './finished-span.js';

/** Where a connection goes (mysql2's connection config, the fields a span names). */
export interface StatementServer {
  database?: string;
  host?: string;
  port?: number;
  socketPath?: string;
}

/** A statement's client span: the database semantic conventions. */
const STATEMENT_SPAN: AttributeNames = ['db.system.name', 'db.namespace', 'db.operation.name', 'db.query.text', 'server.address', 'server.port'];

/** Longer statement texts (a batch's repeated placeholders) are cut: their shape is clear well before. */
const MAX_TEXT = 2048;

let sink: ((span: FinishedSpan) => void) | undefined;
let dbSystem = 'mariadb';
let unsubscribe: (() => void) | undefined;

/**
 * Statement spans go to `record` from now on (undefined: nowhere). The database's kind (`mariadb` or
 * `mysql`) is read from a connection's greeting, which mysql2 publishes on diagnostics_channel.
 */
export function exportStatementsTo(record: ((span: FinishedSpan) => void) | undefined): void {
  sink = record;
  unsubscribe?.();
  unsubscribe = undefined;
  if (record === undefined) return;
  const connects = diagnostics.tracingChannel('mysql2:connect');
  const greeted = {
    asyncEnd(message: unknown) {
      const version = (message as { result?: { serverVersion?: unknown } }).result?.serverVersion;
      if (typeof version === 'string') dbSystem = /mariadb/i.test(version) ? 'mariadb' : 'mysql';
    },
  } as Parameters<typeof connects.subscribe>[0];
  connects.subscribe(greeted);
  unsubscribe = () => connects.unsubscribe(greeted);
}

/**
 * Starts timing one statement run for the requests of `scope`; the function returned ends its
 * client span (with the error, if it failed): text without values, database, server. Undefined
 * while no spans are exported.
 */
export function statementSpan(scope: SpanScope, statement: string, server: StatementServer): ((error?: Error | null) => void) | undefined {
  const record = sink;
  if (record === undefined) return undefined;
  const startMs = performance.timeOrigin + performance.now();
  let ended = false;
  return (error) => {
    if (ended) return;
    ended = true;
    const text = sanitizedStatement(statement);
    const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
    record({
      span: childOf(scope.parent),
      name: server.database ? `${operation} ${server.database}` : operation,
      kind: 'client',
      startMs,
      endMs: performance.timeOrigin + performance.now(),
      names: STATEMENT_SPAN,
      values: [dbSystem, server.database ?? '', operation, text, server.socketPath ?? server.host ?? 'localhost', server.socketPath === undefined ? server.port : undefined],
      links: scope.links,
      ...(error ? { error: describe(error) } : {}),
    });
  };
}

/** A statement's text with every literal value (quoted strings, numbers, hex) replaced by `?`. */
export function sanitizedStatement(sql: string): string {
  const text = sql.replace(/'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*"|\b0x[0-9a-f]+\b|(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?\b/gi, '?');
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

function describe(error: Error): string {
  const { code } = error as Error & { code?: unknown };
  return typeof code === 'string' ? code : error.message.slice(0, 200);
}
