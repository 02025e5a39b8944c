import { parseArgs } from 'node:util';
import { openToolDatabase } from '../backup/tool-database.js';
import { entryDefaults, loadConfig, type DbConfig } from '../config/environment.js';
import { createConnectionSource } from '../db/connect.js';
import { Database } from '../db/database.js';
import { endPool } from '../db/pool.js';
import { defaultTuning } from '../db/pool-tuning.js';
import { causeOf, StorageError } from '../errors/storage-error.js';
import { WebhookOperator, WebhookToolError, type FailedDelivery } from '../events/webhooks/operator.js';
import { reportCommandFailure } from '../startup/command-failure.js';

const USAGE = 'Usage: npm run webhooks -- failed | resend --all | resend <event id>...';

type Command = { name: 'failed' } | { name: 'resend'; all: true } | { name: 'resend'; all: false; ids: number[] };

/**
 * `npm run webhooks -- failed`: the webhook deliveries marked failed (retried for WEBHOOK_RETRY_FOR
 * without a 2xx), one line each. `npm run webhooks -- resend --all` or `resend <event id>...`: sets
 * them pending again with their attempts reset and a new retry period, for the running service to
 * deliver. Uses the database DB_* (or DB_HOST=embedded) name, like the db:* commands.
 */
try {
  const command = parseCommand(process.argv.slice(2));
  const config = loadConfig(process.env, entryDefaults());
  const database = await openToolDatabase(config, { existing: false });
  const db: DbConfig = { ...config.db, servers: [database.target.server], user: database.target.user, password: database.target.password };
  const pool = createConnectionSource(db, defaultTuning);
  try {
    await run(command, new WebhookOperator(new Database(pool, defaultTuning.operationTimeoutMs, defaultTuning.trustAnsweredWithinMs)));
  } finally {
    await endPool(pool);
    await database.stop();
  }
} catch (error) {
  // A database failure is reported by its cause, which says what went wrong (a StorageError only says that something did).
  reportCommandFailure('webhooks', error instanceof StorageError ? causeOf(error) : error);
}

async function run(command: Command, operator: WebhookOperator): Promise<void> {
  if (command.name === 'failed') {
    const count = await operator.failed((delivery) => console.log(failedLine(delivery)));
    console.log(count === 0 ? 'No failed webhook deliveries.' : `${count} failed webhook deliver${count === 1 ? 'y' : 'ies'}; send them again with: npm run webhooks -- resend --all`);
  } else if (command.all) {
    const count = await operator.resendAll();
    console.log(`${count} failed webhook deliver${count === 1 ? 'y is' : 'ies are'} pending again, with a new retry period.`);
  } else {
    const { resent, notFailed } = await operator.resend(command.ids);
    console.log(`${resent} failed webhook deliver${resent === 1 ? 'y is' : 'ies are'} pending again, with a new retry period.`);
    if (notFailed.length > 0) {
      console.error(`No failed delivery of event${notFailed.length === 1 ? '' : 's'} ${notFailed.join(', ')}.`);
      process.exitCode = 1;
    }
  }
}

/** `<url>  event 42  user.updated  user 7  5 attempts  queued 2026-11-25 01:02:03.456 UTC  last error: HTTP 500` */
function failedLine(delivery: FailedDelivery): string {
  return [
    delivery.url,
    `event ${delivery.eventId}`,
    delivery.type ?? '(pruned)',
    `user ${delivery.userId}`,
    `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`,
    `queued ${delivery.queuedAt} UTC`,
    `last error: ${delivery.lastError ?? '-'}`,
  ].join('  ');
}

function parseCommand(args: string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { all: { type: 'boolean' }, 'embedded-by-default': { type: 'boolean' } } });
  } catch (error) {
    throw new WebhookToolError(`${(error as Error).message}. ${USAGE}`);
  }
  const [name, ...rest] = parsed.positionals;
  const all = parsed.values.all === true;
  if (name === 'failed' && rest.length === 0 && !all) return { name };
  if (name === 'resend' && all && rest.length === 0) return { name, all };
  if (name === 'resend' && !all && rest.length > 0 && rest.every((id) => /^[1-9]\d{0,18}$/.test(id))) return { name, all, ids: rest.map(Number) };
  throw new WebhookToolError(USAGE);
}
