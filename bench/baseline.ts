import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/paths.js';

const BUILD_TIMEOUT_MS = 180_000;

/** The service as of another commit, compiled beside this checkout, so one run can measure both. */
export interface Baseline {
  /** The ref as given, and the commit it named. */
  ref: string;
  commit: string;
  /** Its compiled entry point, run with plain node like this side's (see runner.ts). */
  entry: string;
  /** Its TypeScript entry point, for `--runner tsx`. */
  source: string;
}

/**
 * Exports `ref` from this repository's history into bench/results/baseline/<commit>/ (gitignored),
 * gives it this checkout's node_modules, and compiles its src/ with its own tsconfig.json. A commit
 * already built there is reused. Fails with one clear line when the ref is unknown or nothing compiled.
 */
export function prepareBaseline(ref: string): Baseline {
  const commit = git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  if (!commit) throw new Error(`--baseline: "${ref}" names no commit of this repository`);
  const tree = join(projectRoot, 'bench', 'results', 'baseline', commit.slice(0, 12));
  const built = () => entryOf(join(tree, 'build', 'src'));
  const source = () => [join(tree, 'src', 'commands', 'start.ts'), join(tree, 'src', 'main.ts')].find((file) => existsSync(file))!;
  const ready = built();
  if (ready) return { ref, commit, entry: ready, source: source() };

  rmSync(tree, { recursive: true, force: true });
  mkdirSync(tree, { recursive: true });
  const archive = join(tree, 'source.tar');
  run('git', ['archive', '--output', archive, commit]);
  run('tar', ['-xf', archive, '-C', tree]);
  rmSync(archive);
  symlinkSync(join(projectRoot, 'node_modules'), join(tree, 'node_modules'), 'dir');
  const tsc = join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  // tsc still emits on type errors (an older tree may not satisfy today's compiler's every check).
  spawnSync(process.execPath, [tsc, '-p', join(tree, 'tsconfig.json'), '--noEmit', 'false', '--outDir', join(tree, 'build'), '--rootDir', tree], {
    cwd: tree,
    encoding: 'utf8',
    timeout: BUILD_TIMEOUT_MS,
  });
  const entry = built();
  if (!entry) throw new Error(`--baseline: compiling ${ref} (${commit.slice(0, 12)}) produced no entry point (build/src/commands/start.js or build/src/main.js)`);
  return { ref, commit, entry, source: source() };
}

/** The compiled `npm start` entry: src/commands/start.ts, or src/main.ts in commits before the commands had a folder. */
function entryOf(compiledSrc: string): string | undefined {
  return [join(compiledSrc, 'commands', 'start.js'), join(compiledSrc, 'main.js')].find((file) => existsSync(file));
}

/** Its output, or '' when it failed. */
function git(args: string[]): string {
  const result = spawnSync('git', args, { cwd: projectRoot, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : '';
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd: projectRoot, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.error?.message}`);
}
