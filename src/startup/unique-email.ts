import { sql } from '../db/statements.js';
import type { Logger } from '../log/logger.js';
import { addIndexOnline } from './online-index.js';
import type { SchemaSession } from './schema-session.js';
import { UnusableSchemaError } from './unusable-schema.js';

export const UNIQUE_EMAIL_INDEX = 'users_email_unique';
const ER_DUP_ENTRY = 1062;

/** The unique email index's presence, or its build's duration when this call built it. */
export type UniqueEmailOutcome = { built: false } | { built: true; durationMs: number };

/**
 * Brings the unique email index in line with UNIQUE_EMAIL. On: builds it online when absent,
 * unless emails are already duplicated, which stops the start (UnusableSchemaError). Off: an index
 * left by an earlier UNIQUE_EMAIL=on stays, with a warning saying so and how to drop it.
 */
export async function reconcileUniqueEmail(session: SchemaSession, uniqueEmail: boolean, logger: Logger): Promise<UniqueEmailOutcome> {
  const present = (await session.query<unknown[]>(sql.indexExists, [UNIQUE_EMAIL_INDEX])).length > 0;
  if (!uniqueEmail) {
    if (present) {
      logger.warn(`UNIQUE_EMAIL=off, but the unique index ${UNIQUE_EMAIL_INDEX} remains, so duplicate emails stay refused; to allow them: ${sql.dropUniqueEmail}`, {
        index: UNIQUE_EMAIL_INDEX,
      });
    }
    return { built: false };
  }
  if (present) return { built: false };
  await refuseDuplicates(session);
  try {
    const durationMs = await addIndexOnline(session, { index: UNIQUE_EMAIL_INDEX, statement: sql.addUniqueEmail }, logger, {});
    logger.info('unique email index built', { name: UNIQUE_EMAIL_INDEX, durationMs });
    return { built: true, durationMs };
  } catch (error) {
    // A duplicate written while the index was being built.
    if ((error as { errno?: unknown }).errno === ER_DUP_ENTRY) await refuseDuplicates(session);
    throw error;
  }
}

/** Whether UNIQUE_EMAIL=on still needs its index built (requests wait while it builds: a duplicate written meanwhile would stop the start). */
export async function uniqueEmailToBuild(session: SchemaSession, uniqueEmail: boolean): Promise<boolean> {
  return uniqueEmail && (await session.query<unknown[]>(sql.indexExists, [UNIQUE_EMAIL_INDEX])).length === 0;
}

/** The number of emails used by more than one user. */
export async function duplicatedEmails(session: SchemaSession): Promise<number> {
  const [{ n }] = await session.long<[{ n: unknown }]>(sql.countDuplicatedEmails);
  return Number(n);
}

async function refuseDuplicates(session: SchemaSession): Promise<void> {
  const count = await duplicatedEmails(session);
  if (count > 0) throw new UnusableSchemaError(duplicatesMessage(count));
}

export function duplicatesMessage(count: number): string {
  const emails = count === 1 ? '1 email is' : `${count} emails are`;
  return `UNIQUE_EMAIL=on, but ${emails} used by more than one user; list them with: ${sql.listDuplicatedEmails}`;
}
