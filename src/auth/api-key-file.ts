import { readFileSync } from 'node:fs';
import { unreadable } from '../config/unreadable.js';
import type { Principal, Scope } from './principal.js';
import { isScope, scopes } from './scopes.js';

/*
 * API_KEYS_FILE holds one key per line, and never the key itself:
 *
 *   # comments and blank lines are ignored
 *   <name> <scope>[,<scope>] sha256:<64 hex digits>
 *   ci     users:write       sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
 *   <name> <scope>[,<scope>] cert:<subject CN>
 *   billing users:read       cert:billing.internal
 *
 * A `cert:` line gives its scopes to a client whose certificate (HTTPS with TLS_CLIENT_CA_FILE,
 * signed by that CA) has this subject common name: such a caller needs no bearer token.
 * Fields are separated by spaces or tabs. Names are unique, so the access log (`key:<name>`) tells
 * which key a client still uses; `npm run key:new` prints a key and its line.
 */

/** One key of the file: who it proves the caller to be, and the SHA-256 of the key. */
export interface ApiKeyEntry {
  readonly principal: Principal;
  readonly digest: Buffer;
}

/** The keys of a file by their digest in hex. */
export type ApiKeySet = ReadonlyMap<string, ApiKeyEntry>;

/** Why the file cannot be used. The message never quotes the line: it could be a key pasted by mistake. */
export class ApiKeyFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ApiKeyFileError';
  }
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const NAME_RULE = '1-64 letters, digits, ".", "_" or "-", starting with a letter or digit';
const DIGEST = /^sha256:([0-9a-f]{64})$/;
const CERTIFICATE = /^cert:([\x21-\x7e]{1,200})$/;
const RAW_KEY = /usk_/;

export function isKeyName(name: string): boolean {
  return NAME.test(name);
}

/** `users:read,users:write` as scopes, or the first item that is not one. */
export function parseScopes(list: string): { scopes: Scope[] } | { unknown: string } {
  const found: Scope[] = [];
  for (const item of list.split(',')) {
    if (!isScope(item)) return { unknown: item };
    if (!found.includes(item)) found.push(item);
  }
  return { scopes: found };
}

/** The line of API_KEYS_FILE for a key. */
export function apiKeyLine(name: string, keyScopes: readonly Scope[], digest: Buffer): string {
  return `${name} ${keyScopes.join(',')} sha256:${digest.toString('hex')}`;
}

/** Every key of the file's text; a line that is not a comment, blank or a key makes the whole file unusable. */
export function parseApiKeys(text: string): ApiKeySet {
  const keys = new Map<string, ApiKeyEntry>();
  const nameLines = new Map<string, number>();
  const keyLines = new Map<string, number>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const number = i + 1;
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (RAW_KEY.test(line)) {
      throw lineError(number, 'holds an API key itself; the file takes only its hash: add the line `npm run key:new` printed for the file');
    }
    const fields = line.split(/[ \t]+/);
    if (fields.length !== 3) {
      throw lineError(number, `expected "<name> <scopes> sha256:<hex>", found ${fields.length} field${fields.length === 1 ? '' : 's'}`);
    }
    const [name, scopeList, hash] = fields as [string, string, string];
    if (!isKeyName(name)) throw lineError(number, `the name must be ${NAME_RULE}`);
    const parsed = parseScopes(scopeList);
    if ('unknown' in parsed) throw lineError(number, `unknown scope ${JSON.stringify(parsed.unknown.slice(0, 40))} (scopes are ${scopes.join(', ')})`);
    const sameName = nameLines.get(name);
    if (sameName !== undefined) throw lineError(number, `the name "${name}" is already used on line ${sameName}`);
    const commonName = CERTIFICATE.exec(hash)?.[1];
    if (commonName !== undefined) {
      const sameCertificate = keyLines.get(certificateKey(commonName));
      if (sameCertificate !== undefined) throw lineError(number, `the same certificate name as line ${sameCertificate}`);
      nameLines.set(name, number);
      keyLines.set(certificateKey(commonName), number);
      keys.set(certificateKey(commonName), { principal: { name: `cert:${name}`, scopes: new Set(parsed.scopes) }, digest: Buffer.alloc(0) });
      continue;
    }
    const digest = DIGEST.exec(hash)?.[1];
    if (digest === undefined) throw lineError(number, 'the third field must be "sha256:" and 64 lowercase hex digits, or "cert:" and a client certificate\'s common name');
    const sameKey = keyLines.get(digest);
    if (sameKey !== undefined) throw lineError(number, `the same key as line ${sameKey}`);
    nameLines.set(name, number);
    keyLines.set(digest, number);
    keys.set(digest, { principal: { name: `key:${name}`, scopes: new Set(parsed.scopes) }, digest: Buffer.from(digest, 'hex') });
  }
  return keys;
}

/** Where a `cert:` line's entry is kept among the keys: never a hex digest, so the two cannot meet. */
export function certificateKey(commonName: string): string {
  return `cert:${commonName}`;
}

function lineError(number: number, why: string): ApiKeyFileError {
  return new ApiKeyFileError(`line ${number}: ${why}`);
}

/** The keys of the file at `path`, read now. */
export function readApiKeysFile(path: string): ApiKeySet {
  return parseApiKeys(readKeyFile(path));
}

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ApiKeyFileError(`cannot be read (${unreadable(error)})`);
  }
}
