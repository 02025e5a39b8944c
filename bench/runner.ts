import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/paths.js';

/**
 * How the measured processes (service, ceilings) run. `build` compiles src/ and bench/ with tsc
 * into bench/results/build and runs them with plain `node`, as the production image runs
 * `node dist/src/commands/start.js`; under `tsx` every process also carries tsx's loader thread (about 30 MB
 * of RSS) and its start-up transpiling.
 */
export type Runner = 'build' | 'tsx';

const BUILD_TIMEOUT_MS = 120_000;
const buildRoot = join(projectRoot, 'bench', 'results', 'build');
let runner: Runner = 'tsx';

/** Compiles when the runner is `build`; until then (and with `tsx`) scripts run through tsx. */
export function prepareRunner(chosen: Runner): void {
  if (chosen === 'build') {
    const tsc = join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = spawnSync(process.execPath, [tsc, '-p', join('bench', 'tsconfig.build.json')], {
      cwd: projectRoot,
      encoding: 'utf8',
      timeout: BUILD_TIMEOUT_MS,
    });
    // tsc still emits on type errors; a half-edited file elsewhere in the tree should not stop a benchmark.
    if (result.status !== 0) process.stderr.write(`[bench] tsc reported problems:\n${result.stdout}${result.stderr}`);
    if (!existsSync(join(buildRoot, 'src', 'commands', 'start.js'))) throw new Error('tsc produced no bench/results/build/src/commands/start.js');
  }
  runner = chosen;
}

/** The node arguments that run a TypeScript file of this project, e.g. `bench/db-direct.ts`. */
export function nodeArgsFor(script: string): string[] {
  return runner === 'build' ? [join(buildRoot, script.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', script];
}
