import type { LogFormat } from '../config/environment.js';
import { prettyLine } from './pretty.js';
import type { SpanContext } from '../tracing/trace-context.js';
import { stdoutLines, type LineWriter } from './stdout-lines.js';
import { isoTimestamps } from './timestamp.js';

export type LogFields = Record<string, unknown>;

export interface Logger {
  /**
   * The access log line: one per request, naming the id its response carried in `X-Request-Id`,
   * the client's address (as TRUST_PROXY says), its User-Agent (cut to a few hundred characters,
   * control characters escaped) when it sent one, and the principal its bearer token proved
   * (`key:ci`) when it was authenticated, and the trace and span its `traceparent` named.
   */
  request(
    method: string,
    target: string,
    status: number | 'aborted',
    durationMs: number,
    requestId: string,
    client: string,
    userAgent: string | undefined,
    principal?: string,
    trace?: SpanContext,
  ): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, error: unknown, fields?: LogFields): void;
}


/** JSON lines for machines (the default); `pretty` for a person at a terminal. */
export function createLogger(write: LineWriter = stdoutLines(), format: LogFormat = 'json'): Logger {
  const now = isoTimestamps();
  const emit =
    format === 'pretty'
      ? (level: string, msg: string, fields?: LogFields): void => write(prettyLine(now(), level, msg, fields))
      : (level: string, msg: string, fields?: LogFields): void =>
          write(JSON.stringify({ time: now(), level, msg, ...fields }) + '\n');
  return {
    request:
      format === 'pretty'
        ? (method, target, status, durationMs, requestId, client, userAgent, principal, trace) =>
            emit('info', `${method} ${target} ${status}`, {
              durationMs,
              requestId,
              trace_id: trace?.traceId,
              span_id: trace?.spanId,
              client,
              userAgent: loggableUserAgent(userAgent),
              principal,
            })
        : // The hot path: the line is written field by field instead of building and stringifying an object.
          (method, target, status, durationMs, requestId, client, userAgent, principal, trace) =>
            write(
              `{"time":"${now()}","level":"info","msg":"request","method":${JSON.stringify(method)},` +
                `"path":${JSON.stringify(target)},"status":${typeof status === 'number' ? status : '"aborted"'},` +
                `"durationMs":${durationMs},"requestId":${JSON.stringify(requestId)}` +
                // Trace and span ids are hex digits (trace-context.ts): nothing to escape.
                `${trace === undefined ? '' : `,"trace_id":"${trace.traceId}","span_id":"${trace.spanId}"`},"client":${JSON.stringify(client)}` +
                `${userAgent === undefined ? '' : `,"userAgent":${JSON.stringify(loggableUserAgent(userAgent))}`}` +
                `${principal === undefined ? '' : `,"principal":${JSON.stringify(principal)}`}}\n`,
            ),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, error, fields) => emit('error', msg, { ...fields, err: describeError(error) }),
  };
}

/** What an error looks like in the log: enough to diagnose, never the SQL text or bound values. */
export function describeError(error: unknown): LogFields {
  if (!(error instanceof Error)) return { message: String(error) };
  const { code, errno, sqlState } = error as Error & { code?: unknown; errno?: unknown; sqlState?: unknown };
  return { name: error.name, message: error.message, code, errno, sqlState, stack: error.stack };
}

/** Longer User-Agent values are cut: they say which client it was in far fewer characters. */
export const MAX_USER_AGENT_LENGTH = 200;
/** C0 and C1 controls, line and paragraph separators, and the bidirectional overrides that can make a line read otherwise. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
const UNPRINTABLE_ALL = new RegExp(UNPRINTABLE.source, 'g');

/** A User-Agent as the access line shows it: at most MAX_USER_AGENT_LENGTH characters (then `…`), unprintable ones as `\u` escapes. */
export function loggableUserAgent(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const cut = value.length > MAX_USER_AGENT_LENGTH ? `${value.slice(0, MAX_USER_AGENT_LENGTH)}…` : value;
  if (!UNPRINTABLE.test(cut)) return cut;
  return cut.replace(UNPRINTABLE_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The request target as it may be logged: the value of `pwd`, the list's password, is replaced;
 * every other parameter (`limit`, `sort`, `cursor`, `email`, ...) stays readable. The key is
 * compared as the API reads it and then some, so that a client that misspells it (`PWD`,
 * `pwd[]`, `p%77d`, ` pwd`) does not get its password logged either.
 */
export function redactTarget(path: string, query: string): string {
  if (query === '') return path;
  const parts = query.split('&');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const eq = part.indexOf('=');
    if (eq !== -1 && isPasswordKey(part.slice(0, eq))) parts[i] = `${part.slice(0, eq)}=[REDACTED]`;
  }
  return `${path}?${parts.join('&')}`;
}

/** `pwd` however it is written: percent-encoded (leniently), in any case, with brackets, spaces or other marks around it. */
function isPasswordKey(key: string): boolean {
  // Most keys (`limit`, `sort`) have neither a p nor an escape: one regex test is all they cost.
  if (!/[pP%]/.test(key)) return false;
  const decoded = key.replaceAll('+', ' ').replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return decoded.toLowerCase().replace(/\[[^\]]*\]/g, '').replace(/[^a-z0-9]/g, '') === 'pwd';
}
