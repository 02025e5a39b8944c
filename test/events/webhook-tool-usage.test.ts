import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runScript } from '../helpers/run-script.js';

const WEBHOOKS = 'src/commands/webhooks.ts';
/** As `npm run webhooks` runs it; no database is reached for any of these. */
const tool = (...args: string[]) => runScript(WEBHOOKS, { DB_HOST: '127.0.0.1', DB_PORT: '9' }, 30_000, { args: ['--embedded-by-default', ...args] });

describe('npm run webhooks: usage and --help, as any command-line tool', () => {
  test('--help and -h print the usage on stdout, every command in it, and exit 0', async () => {
    for (const flag of ['--help', '-h']) {
      const result = await tool(flag);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stderr, '');
      assert.match(result.stdout, /^Usage: npm run webhooks -- <command>\n/);
      for (const command of ['endpoints', 'pending', 'failed', 'retry [<endpoint>]', 'resend --all', 'resend <event id>...', 'disable <endpoint>', 'enable <endpoint>', 'rotate <endpoint> [--grace <seconds>]', 'drop <endpoint>', 'move <endpoint> <other>']) {
        assert.match(result.stdout, new RegExp(`^  ${command.replace(/[.<>[\]]/g, '\\$&')} `, 'm'), command);
      }
    }
  });

  test('--help after a command still prints the usage, and nothing is done', async () => {
    const result = await tool('drop', 'https://hooks.example/users', '--help');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Usage: /);
  });

  test('no command: the usage on stderr, nothing else, exit 2', async () => {
    const result = await tool();
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^Usage: npm run webhooks -- <command>\n/);
  });

  const refused = [
    { args: ['list'], line: 'webhooks: unknown command "list"' },
    { args: ['failed', '--nope'], line: 'webhooks: unknown option "--nope"' },
    { args: ['resend'], line: 'webhooks: resend takes --all or event ids' },
    { args: ['resend', 'seven'], line: 'webhooks: resend takes event ids (whole numbers), got seven' },
    { args: ['pending', 'extra'], line: 'webhooks: pending takes no arguments' },
    { args: ['drop'], line: 'webhooks: drop takes one endpoint' },
    { args: ['disable'], line: 'webhooks: disable takes one endpoint' },
    { args: ['rotate', '3', '--grace', 'soon'], line: 'webhooks: --grace takes whole seconds from 0 to 604800' },
    { args: ['pending', '--grace', '5'], line: 'webhooks: --grace goes with rotate' },
    { args: ['retry', 'a', 'b'], line: 'webhooks: retry takes at most one endpoint' },
    { args: ['move', 'https://a.example/hooks'], line: 'webhooks: move takes two endpoints: the one to forget, and the one to send its deliveries to' },
  ];
  for (const { args, line } of refused) {
    test(`${args.join(' ')}: one line saying what is wrong, then the usage, on stderr, exit 2`, async () => {
      const result = await tool(...args);
      assert.equal(result.code, 2);
      assert.equal(result.stdout, '');
      assert.ok(result.stderr.startsWith(`${line}\n\nUsage: npm run webhooks -- <command>\n`), result.stderr);
      assert.doesNotMatch(result.stderr, /webhooks failed|TypeError|ERR_PARSE_ARGS|To specify a positional argument/);
    });
  }
});
