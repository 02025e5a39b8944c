import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { projectFile } from '../paths.js';

/** What is running: this service's version (package.json), Node's, and mysql2's, read once at start. */
export interface BuildInfo {
  version: string;
  node: string;
  mysql2: string;
}

export function buildInfo(): BuildInfo {
  const require = createRequire(import.meta.url);
  return {
    version: versionIn(() => readFileSync(projectFile('package.json'), 'utf8')),
    node: process.version,
    mysql2: versionIn(() => readFileSync(require.resolve('mysql2/package.json'), 'utf8')),
  };
}

function versionIn(read: () => string): string {
  try {
    const { version } = JSON.parse(read()) as { version?: unknown };
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}
