import { spawnSync } from 'node:child_process';

/** Runs a system command (ip, nft) to its end; fails with its stderr when it exits non-zero. */
export function run(command: string, args: string[], input?: string): string {
  const result = spawnSync(command, args, { encoding: 'utf8', input, timeout: 30_000 });
  if (result.error) throw new Error(`${command} ${args.join(' ')}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr.trim() || `exit ${result.status}`}`);
  return result.stdout;
}

/** The same, for clean-up: a failure (already gone) is ignored. */
export function runQuietly(command: string, args: string[]): void {
  spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 });
}
