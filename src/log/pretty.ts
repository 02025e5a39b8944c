/**
 * A log entry as a person reads it at a terminal: `12:04:05.123 WARN  message key=value ...`.
 * An error shows its message and code; its stack only when it has no code, since errors with a
 * code (ECONNREFUSED, ER_...) are conditions of the environment rather than faults of the program.
 */
export function prettyLine(time: string, level: string, msg: string, fields?: Readonly<Record<string, unknown>>): string {
  let line = `${time.slice(11, 23)} ${level.toUpperCase().padEnd(5)} ${msg}`;
  let stack = '';
  for (const [key, value] of Object.entries(fields ?? {})) {
    if (value === undefined) continue;
    if (key === 'err' && typeof value === 'object' && value !== null) {
      const { message, code, stack: trace } = value as { message?: unknown; code?: unknown; stack?: unknown };
      line += ` error=${shown(message)}`;
      if (code !== undefined) line += ` code=${shown(code)}`;
      else if (typeof trace === 'string') stack = `\n    ${trace.split('\n').slice(1).map((frame) => frame.trim()).join('\n    ')}`;
      continue;
    }
    line += ` ${key}=${shown(value)}`;
  }
  return `${line}${stack}\n`;
}

/** Plain words stay bare; anything with spaces, quotes or structure is written as JSON. */
function shown(value: unknown): string {
  if (typeof value === 'string') return /^[\w./:@?=&[\]%+-]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? String(value);
}
