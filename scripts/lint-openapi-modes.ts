/**
 * Lints the API description each API_COMPAT mode serves without `/metrics` (openapi.json itself,
 * with it, is what `redocly lint` lints), with the project's rules: the variants are written to a
 * temporary folder, linted, then removed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiCompatModes } from '../src/config/environment.js';
import { describeService } from '../src/docs/openapi-modes.js';
import { projectFile } from '../src/paths.js';

const contract = JSON.parse(readFileSync(projectFile('openapi.json'), 'utf8')) as Record<string, unknown>;
const folder = mkdtempSync(join(tmpdir(), 'openapi-modes-'));
try {
  const files = apiCompatModes.map((mode) => {
    const file = join(folder, `openapi-${mode}.json`);
    writeFileSync(file, JSON.stringify(describeService(contract, mode, false), null, 2));
    return file;
  });
  const lint = spawnSync(projectFile('node_modules/.bin/redocly'), ['lint', '--config', projectFile('redocly.yaml'), ...files], {
    stdio: 'inherit',
  });
  process.exitCode = lint.status ?? 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
