import { openToolDatabase } from '../backup/tool-database.js';
import { entryDefaults, loadConfig, type DbConfig } from '../config/environment.js';
import { createConnectionSource } from '../db/connect.js';
import { Database } from '../db/database.js';
import { endPool } from '../db/pool.js';
import { defaultTuning } from '../db/pool-tuning.js';
import { causeOf, StorageError } from '../errors/storage-error.js';
import { WebhookOperator } from '../events/webhooks/operator.js';
import { EndpointOperator } from '../events/webhooks/endpoint-operator.js';
import { deliveries, endpointLine, failedLine, pendingLine } from './webhook-lines.js';
import { shownUrl } from '../events/webhooks/shown-url.js';
import { reportCommandFailure } from '../startup/command-failure.js';

const USAGE = `Usage: npm run webhooks -- <command>

Commands:
  endpoints                  every endpoint: id, source, URL, state, pending and failed deliveries
  pending                    deliveries being retried: endpoint, event, attempts, last error, next attempt
  failed                     deliveries given up once WEBHOOK_RETRY_FOR was over
  retry [<endpoint>]         pending deliveries sent now instead of at their next scheduled attempt
  resend --all               every failed delivery pending again, with a new retry period
  resend <event id>...       these events sent again: failed deliveries pending again, pending ones now
  disable <endpoint>         an endpoint made through the API gets nothing until enabled
  enable <endpoint>          ... gets the events recorded from then on (recover brings the rest)
  rotate <endpoint> [--grace <seconds>]  a new secret (printed); the old one signs too for the grace (86400)
  drop <endpoint>            forget an endpoint no longer in WEBHOOK_URLS, and its deliveries
  move <endpoint> <other>    hand an endpoint's deliveries to another endpoint, and forget it

<endpoint> is an id as listed by endpoints, or a URL as listed (without its query) or as in
WEBHOOK_URLS. The database is the service's, from DB_* (unset: npm start's embedded one).

Options:
  -h, --help                 print this help
`;

type Command =
  | { name: 'pending' | 'failed' | 'endpoints' }
  | { name: 'retry'; endpoint: string | undefined }
  | { name: 'disable' | 'enable'; endpoint: string }
  | { name: 'rotate'; endpoint: string; graceSeconds: number }
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
      const handle = new Database(pool, defaultTuning.operationTimeoutMs, defaultTuning.trustAnsweredWithinMs);
      await run(command, new WebhookOperator(handle), new EndpointOperator(handle));
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

async function run(command: Command, operator: WebhookOperator, endpoints: EndpointOperator): Promise<void> {
  switch (command.name) {
    case 'endpoints': {
      const listed = await endpoints.endpoints();
      for (const endpoint of listed) console.log(endpointLine(endpoint));
      console.log(listed.length === 0 ? 'No webhook endpoints.' : `${listed.length} webhook endpoint${listed.length === 1 ? '' : 's'}.`);
      return;
    }
    case 'disable':
    case 'enable': {
      const { record, changed } = await endpoints.setDisabled(command.endpoint, command.name === 'disable');
      const state = command.name === 'disable' ? 'disabled' : 'enabled';
      console.log(changed ? `Endpoint ${record.id} (${shownUrl(record.url)}) is ${state}; running services follow within 2 s.` : `Endpoint ${record.id} (${shownUrl(record.url)}) was ${state} already.`);
      return;
    }
    case 'rotate': {
      const { record, key } = await endpoints.rotate(command.endpoint, command.graceSeconds);
      console.log(key);
      console.error(`Endpoint ${record.id}: the new secret is above; the old one signs too for ${command.graceSeconds} s.`);
      return;
    }
    case 'retry': {
      const retried = await endpoints.retry(command.endpoint);
      for (const { url, count } of retried) console.log(`${url}: ${count} pending ${deliveries(count)} due now.`);
      if (retried.length === 0) console.log('No webhook endpoints.');
      return;
    }
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
      const { resent, retried, notFound } = await operator.resend(command.ids);
      if (notFound.length > 0) {
        console.error(`No failed or pending delivery of event${notFound.length === 1 ? '' : 's'} ${notFound.join(', ')}.`);
        process.exitCode = 1;
      }
      if (resent + retried > 0 || notFound.length === 0) {
        const parts = [
          ...(resent > 0 ? [`${resent} failed webhook ${resent === 1 ? 'delivery is' : 'deliveries are'} pending again, with a new retry period`] : []),
          ...(retried > 0 ? [`${retried} pending webhook ${retried === 1 ? 'delivery is' : 'deliveries are'} due now`] : []),
        ];
        console.log(`${parts.join('; ') || 'Nothing to send again'}.`);
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

/** The command line, or 'help'. Throws a UsageError (an empty message: no command at all) for anything else. */
function parseCommand(args: string[]): Command | 'help' {
  const words: string[] = [];
  let all = false;
  let grace: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    // npm run's own: where DB_HOST is unset the embedded database is meant, as with npm start.
    if (arg === '--embedded-by-default') continue;
    if (arg === '-h' || arg === '--help') return 'help';
    if (arg === '--all') all = true;
    else if (arg === '--grace') grace = args[++i] ?? '';
    else if (arg.startsWith('-')) throw new UsageError(`unknown option "${arg}"`);
    else words.push(arg);
  }
  if (grace !== undefined && words[0] !== 'rotate') throw new UsageError('--grace goes with rotate');
  const [name, ...rest] = words;
  if (name === undefined) {
    if (all) throw new UsageError('--all goes with resend');
    throw new UsageError('');
  }
  if (all && name !== 'resend') throw new UsageError(`--all goes with resend, not ${name}`);
  switch (name) {
    case 'pending':
    case 'failed':
    case 'endpoints':
      if (rest.length > 0) throw new UsageError(`${name} takes no arguments`);
      return { name };
    case 'retry':
      if (rest.length > 1) throw new UsageError('retry takes at most one endpoint');
      return { name, endpoint: rest[0] };
    case 'disable':
    case 'enable':
      if (rest.length !== 1) throw new UsageError(`${name} takes one endpoint`);
      return { name, endpoint: rest[0]! };
    case 'rotate': {
      if (rest.length !== 1) throw new UsageError('rotate takes one endpoint');
      const graceSeconds = grace === undefined ? 86_400 : Number(grace);
      if (!/^\d{1,6}$/.test(grace ?? '0') || graceSeconds > 604_800) throw new UsageError('--grace takes whole seconds from 0 to 604800');
      return { name, endpoint: rest[0]!, graceSeconds };
    }
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
