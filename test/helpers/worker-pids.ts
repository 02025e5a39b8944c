import { spawnSync } from 'node:child_process';

/** The worker processes of a WORKERS=N service: the primary's children that run the service's entry point. */
export function workerPids(primaryPid: number): number[] {
  const ps = spawnSync('ps', ['--ppid', String(primaryPid), '-o', 'pid=,args='], { encoding: 'utf8' });
  return ps.stdout
    .split('\n')
    .filter((line) => line.includes('src/main.ts'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}
