/**
 * Lints the API description each API_COMPAT mode serves without `/metrics` (openapi.json itself,
 * with it, is what `redocly lint` lints), each AUTH mode's and RATE_LIMIT's, with the project's
 * rules: the variants are written to a temporary folder, linted, then removed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiCompatModes } from '../src/config/environment.js';
import type { ProtectedMode } from '../src/docs/openapi-auth.js';
import { describeService } from '../src/docs/openapi-modes.js';
import { projectFile } from '../src/paths.js';

const protectedModes: ProtectedMode[] = ['writes', 'all'];
const contract = JSON.parse(readFileSync(projectFile('openapi.json'), 'utf8')) as Record<string, unknown>;
const folder = mkdtempSync(join(tmpdir(), 'openapi-modes-'));
try {
  const variants = [
    ...apiCompatModes.map((mode) => ({ name: mode, doc: describeService(contract, { mode, metricsOnApiPort: false }) })),
    ...protectedModes.map((auth) => ({ name: `auth-${auth}`, doc: describeService(contract, { mode: 'contract', metricsOnApiPort: true, auth, events: true }) })),
    { name: 'rate-limit', doc: describeService(contract, { mode: 'contract', metricsOnApiPort: true, auth: 'all', rateLimit: { requests: 100, windowSeconds: 10 }, events: true }) },
  ];
  const files = variants.map(({ name, doc }) => {
    const file = join(folder, `openapi-${name}.json`);
    writeFileSync(file, JSON.stringify(doc, null, 2));
    return file;
  });
  const lint = spawnSync(projectFile('node_modules/.bin/redocly'), ['lint', '--config', projectFile('redocly.yaml'), ...files], {
    stdio: 'inherit',
  });
  process.exitCode = lint.status ?? 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
