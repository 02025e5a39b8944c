import { openToolDatabase } from '../backup/tool-database.js';
import { entryDefaults, loadConfig, type DbConfig } from '../config/environment.js';
import { createConnectionSource } from '../db/connect.js';
import { Database } from '../db/database.js';
import { endPool } from '../db/pool.js';
import { defaultTuning } from '../db/pool-tuning.js';
import { causeOf, StorageError } from '../errors/storage-error.js';
import type { FailedDelivery, PendingDelivery } from '../events/webhooks/delivery-listing.js';
import { WebhookOperator } from '../events/webhooks/operator.js';
import { reportCommandFailure } from '../startup/command-failure.js';

const USAGE = `Usage: npm run webhooks -- <command>

Commands:
  pending                    deliveries being retried: endpoint, event, attempts, last error, next attempt
  failed                     deliveries given up once WEBHOOK_RETRY_FOR was over
  resend --all               every failed delivery pending again, with a new retry period
  resend <event id>...       the failed deliveries of these events pending again
  drop <endpoint>            forget an endpoint no longer in WEBHOOK_URLS, and its deliveries
  move <endpoint> <other>    hand an endpoint's deliveries to another endpoint, and forget it

<endpoint> is a URL as listed (without its query) or as in WEBHOOK_URLS. The database is the
service's, from DB_* (unset: npm start's embedded one).

Options:
  -h, --help                 print this help
`;

type Command =
  | { name: 'pending' | 'failed' }
  | { name: 'resend'; ids: number[] | 'all' }
  | { name: 'drop'; endpoint: string }
  | { name: 'move'; from: string; to: string };

/** A command line that names no command the tool knows: usage on stderr, exit 2. */
class UsageError extends Error {}

/**
 * `npm run webhooks -- <command>`: what an operator sees of and does with webhook deliveries (see
 * USAGE; docs/events.md). Uses the database DB_* (or DB_HOST=embedded) name, like the db:* commands.
 */
try {
  const command = parseCommand(process.argv.slice(2));
  if (command === 'help') {
    process.stdout.write(USAGE);
  } else {
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
  }
} catch (error) {
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message === '' ? '' : `webhooks: ${error.message}\n\n`}${USAGE}`);
    process.exitCode = 2;
  } else {
    // A database failure is reported by its cause, which says what went wrong (a StorageError only says that something did).
    reportCommandFailure('webhooks', error instanceof StorageError ? causeOf(error) : error);
  }
}

async function run(command: Command, operator: WebhookOperator): Promise<void> {
  switch (command.name) {
    case 'pending': {
      const { count, leftBehind } = await operator.pending((delivery) => console.log(pendingLine(delivery)));
      console.log(count === 0 ? 'No pending webhook deliveries.' : `${count} pending webhook ${deliveries(count)}.`);
      for (const { url, pending } of leftBehind) {
        console.log(
          `${url}: ${pending} pending ${deliveries(pending)} and no running service delivers to it (it is in no WEBHOOK_URLS): ` +
            `add it back, or hand them to another endpoint with: npm run webhooks -- move ${url} <endpoint>, or drop them with: npm run webhooks -- drop ${url}`,
        );
      }
      return;
    }
    case 'failed': {
      const count = await operator.failed((delivery) => console.log(failedLine(delivery)));
      console.log(count === 0 ? 'No failed webhook deliveries.' : `${count} failed webhook ${deliveries(count)}; send them again with: npm run webhooks -- resend --all`);
      return;
    }
    case 'resend': {
      if (command.ids === 'all') {
        const count = await operator.resendAll();
        console.log(`${count} failed webhook ${count === 1 ? 'delivery is' : 'deliveries are'} pending again, with a new retry period.`);
        return;
      }
      const { resent, notFailed } = await operator.resend(command.ids);
      console.log(`${resent} failed webhook ${resent === 1 ? 'delivery is' : 'deliveries are'} pending again, with a new retry period.`);
      if (notFailed.length > 0) {
        console.error(`No failed delivery of event${notFailed.length === 1 ? '' : 's'} ${notFailed.join(', ')}.`);
        process.exitCode = 1;
      }
      return;
    }
    case 'drop': {
      const { url, pending, failed } = await operator.drop(command.endpoint);
      console.log(`Dropped ${url}: its ${pending} pending and ${failed} failed webhook ${deliveries(pending + failed)}, and the endpoint (added to WEBHOOK_URLS again, it starts with the events recorded then).`);
      return;
    }
    case 'move': {
      const { from, to, moved, toDelivered } = await operator.move(command.from, command.to);
      console.log(`Moved ${moved} webhook ${deliveries(moved)} from ${from} to ${to}, pending there with a new retry period; ${from} is forgotten.`);
      if (!toDelivered) console.log(`No running service delivers to ${to} now: they are sent once one does.`);
      return;
    }
  }
}

function deliveries(count: number): string {
  return count === 1 ? 'delivery' : 'deliveries';
}

function attempts(count: number): string {
  return `${count} attempt${count === 1 ? '' : 's'}`;
}

/** `<url>  event 42  user.updated  user 7  3 attempts  last error: HTTP 500  next attempt 2026-11-25 01:02:33.456 UTC (in 28 s)` */
function pendingLine(delivery: PendingDelivery): string {
  const { next } = delivery;
  const when =
    'behind' in next
      ? `next attempt after event ${next.behind} (its user's earlier delivery)`
      : next.inSeconds <= 0
        ? 'next attempt now'
        : `next attempt ${next.at} UTC (in ${inWords(next.inSeconds)})`;
  return [
    delivery.url,
    `event ${delivery.eventId}`,
    delivery.type ?? '(pruned)',
    `user ${delivery.userId}`,
    attempts(delivery.attempts),
    `last error: ${delivery.lastError ?? '-'}`,
    when,
  ].join('  ');
}

/** `<url>  event 42  user.updated  user 7  5 attempts  queued 2026-11-25 01:02:03.456 UTC  last error: HTTP 500` */
function failedLine(delivery: FailedDelivery): string {
  return [
    delivery.url,
    `event ${delivery.eventId}`,
    delivery.type ?? '(pruned)',
    `user ${delivery.userId}`,
    attempts(delivery.attempts),
    `queued ${delivery.queuedAt} UTC`,
    `last error: ${delivery.lastError ?? '-'}`,
  ].join('  ');
}

/** `28 s`, `12 min`, `3.5 h`. */
function inWords(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 2 * 3600) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 360) / 10} h`;
}

/** The command line, or 'help'. Throws a UsageError (an empty message: no command at all) for anything else. */
function parseCommand(args: string[]): Command | 'help' {
  const words: string[] = [];
  let all = false;
  for (const arg of args) {
    // npm run's own: where DB_HOST is unset the embedded database is meant, as with npm start.
    if (arg === '--embedded-by-default') continue;
    if (arg === '-h' || arg === '--help') return 'help';
    if (arg === '--all') all = true;
    else if (arg.startsWith('-')) throw new UsageError(`unknown option "${arg}"`);
    else words.push(arg);
  }
  const [name, ...rest] = words;
  if (name === undefined) {
    if (all) throw new UsageError('--all goes with resend');
    throw new UsageError('');
  }
  if (all && name !== 'resend') throw new UsageError(`--all goes with resend, not ${name}`);
  switch (name) {
    case 'pending':
    case 'failed':
      if (rest.length > 0) throw new UsageError(`${name} takes no arguments`);
      return { name };
    case 'resend':
      if (all && rest.length === 0) return { name, ids: 'all' };
      if (all || rest.length === 0) throw new UsageError('resend takes --all or event ids');
      if (!rest.every((id) => /^[1-9]\d{0,18}$/.test(id))) throw new UsageError(`resend takes event ids (whole numbers), got ${rest.join(' ')}`);
      return { name, ids: rest.map(Number) };
    case 'drop':
      if (rest.length !== 1) throw new UsageError('drop takes one endpoint');
      return { name, endpoint: rest[0]! };
    case 'move':
      if (rest.length !== 2) throw new UsageError('move takes two endpoints: the one to forget, and the one to send its deliveries to');
      return { name, from: rest[0]!, to: rest[1]! };
    default:
      throw new UsageError(`unknown command "${name}"`);
  }
}
