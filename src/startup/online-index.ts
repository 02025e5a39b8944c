import { lockingForm, sql, unconditionalForm } from '../db/statements.js';
import type { LogFields, Logger } from '../log/logger.js';
import type { SchemaSession } from './schema-session.js';

/** Told while an index builds, about once a second (`npm run db:migrate` prints it). */
export type BuildProgress = (index: string, session: SchemaSession, startedAt: number) => () => void;

/** An index to add, and the statement that adds it online when it is absent. */
export interface IndexAddition {
  index: string;
  statement: string;
}

const ER_DUP_KEYNAME = 1061;
const ER_PARSE_ERROR = 1064;
/** ALGORITHM=INPLACE or LOCK=NONE refused, with or without a reason (MyISAM and MEMORY tables, for one). */
const ONLINE_REFUSED = new Set([1845, 1846]);

/**
 * Adds the index unless it exists, while the table stays readable and writable. A server that
 * cannot build it so builds it its own way, which may block writes until it is done: logged as a
 * warning, with the server's reason. A server without ADD INDEX IF NOT EXISTS (MySQL) is asked
 * first whether the index exists. Resolves with the milliseconds the build took.
 */
export async function addIndexOnline(session: SchemaSession, addition: IndexAddition, logger: Logger, fields: LogFields, progress?: BuildProgress): Promise<number> {
  const started = performance.now();
  const stopWatching = progress?.(addition.index, session, started);
  try {
    await add(session, addition, logger, fields);
  } finally {
    stopWatching?.();
  }
  return Math.round(performance.now() - started);
}

async function add(session: SchemaSession, { index, statement }: IndexAddition, logger: Logger, fields: LogFields): Promise<void> {
  try {
    await session.long(statement);
  } catch (error) {
    const errno = (error as { errno?: unknown }).errno as number;
    if (ONLINE_REFUSED.has(errno) && statement !== lockingForm(statement)) {
      logger.warn('online index build refused by the server: building it with the server\'s own algorithm, which may block writes', {
        ...fields,
        index,
        reason: (error as Error).message,
      });
      return add(session, { index, statement: lockingForm(statement) }, logger, fields);
    }
    if (errno === ER_PARSE_ERROR && statement !== unconditionalForm(statement)) {
      if ((await session.query<unknown[]>(sql.indexExists, [index])).length > 0) return;
      return add(session, { index, statement: unconditionalForm(statement) }, logger, fields);
    }
    // Another runner, without the lock, added it meanwhile.
    if (errno === ER_DUP_KEYNAME && statement === unconditionalForm(statement)) return;
    throw error;
  }
}
