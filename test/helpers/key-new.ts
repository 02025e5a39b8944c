import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/paths.js';
import { childEnv } from './run-script.js';

const run = promisify(execFile);

export interface ApiKey {
  /** The key a client sends as `Authorization: Bearer <key>`. */
  key: string;
  /** Its line for API_KEYS_FILE. */
  line: string;
}

/** A key made as an operator makes one: `npm run key:new -- --scopes … --name …`. */
export async function keyNew(name: string, scopes: string): Promise<ApiKey> {
  const { stdout } = await run('npm', ['run', '--silent', 'key:new', '--', '--scopes', scopes, '--name', name], {
    cwd: projectRoot,
    env: childEnv({}),
  });
  const key = /^(usk_[A-Za-z0-9_-]{43})$/m.exec(stdout)?.[1];
  const line = new RegExp(`^(${name} \\S+ sha256:[0-9a-f]{64})$`, 'm').exec(stdout)?.[1];
  assert.ok(key && line, stdout);
  return { key, line };
}
