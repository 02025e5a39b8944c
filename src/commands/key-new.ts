import { parseArgs } from 'node:util';
import { apiKeyLine, isKeyName, NAME_RULE, parseScopes } from '../auth/api-key-file.js';
import { apiKeyDigest, newApiKey } from '../auth/api-key.js';
import { scopes } from '../auth/scopes.js';

/**
 * `npm run key:new -- --scopes users:write --name ci`: a new API key, printed once, and separately
 * the line for API_KEYS_FILE, which holds only the key's hash. Nothing is written anywhere: the
 * operator appends the line, and the service picks it up within a second, without a restart.
 */
const usage = `Usage: npm run key:new -- --scopes <${scopes.join('|')}>[,...] --name <name>`;

function fail(message: string): never {
  process.stderr.write(`key:new failed: ${message}\n${usage}\n`);
  process.exit(1);
}

let values: { scopes?: string | undefined; name?: string | undefined; help?: boolean | undefined };
try {
  ({ values } = parseArgs({
    options: { scopes: { type: 'string' }, name: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  }));
} catch (error) {
  fail((error as Error).message);
}
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
if (values.name === undefined) fail('--name is required: it names the key in API_KEYS_FILE and in the access log');
if (!isKeyName(values.name)) fail(`--name must be ${NAME_RULE}`);
if (values.scopes === undefined) fail(`--scopes is required: ${scopes.join(', ')}, or both separated by a comma`);
const parsed = parseScopes(values.scopes);
if ('unknown' in parsed) fail(`unknown scope ${JSON.stringify(parsed.unknown)} (scopes are ${scopes.join(', ')})`);

const key = newApiKey();
process.stdout.write(
  `API key "${values.name}" (${parsed.scopes.join(', ')}); it is shown only this once, give it to the client:\n` +
    `${key}\n\n` +
    'Append this line to API_KEYS_FILE (it holds only the hash of the key):\n' +
    `${apiKeyLine(values.name, parsed.scopes, apiKeyDigest(key))}\n`,
);
