import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

export interface ProcessMemory {
  rssMb: number;
  /** VmHWM: the highest resident set size since start, or since the last resetPeakRss. */
  peakRssMb: number;
}

export function readProcessMemory(pid: number | 'self'): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
}

/** Lowers VmHWM to the current RSS (Linux: "5" into clear_refs); false when not permitted. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Linux reports CPU time in clock ticks of 1/100 s (USER_HZ) on every common architecture. */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) the process and the processes it started (a service's workers) have
 * used so far. A child that exits between two readings takes its share with it.
 */
export function readCpuSeconds(pid: number): number {
  return ownCpuSeconds(pid) + childPids(pid).reduce((sum, child) => sum + childCpuSeconds(child), 0);
}

function childCpuSeconds(pid: number): number {
  try {
    return readCpuSeconds(pid);
  } catch {
    return 0;
  }
}

function ownCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Sends `signal` to the process and the processes it started (SIGSTOP, SIGCONT: a side waiting while another is measured). */
export function signalTree(pid: number, signal: NodeJS.Signals): void {
  for (const each of [pid, ...childPids(pid)]) {
    try {
      process.kill(each, signal);
    } catch {
      // Gone meanwhile.
    }
  }
}

function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    // Gone, or a kernel without the children list: count the process alone.
    return [];
  }
}

/** The processes whose CPU a run reports: the one under test, and the database server when it is on this machine. */
export interface MeasuredPids {
  server: number;
  database?: number | undefined;
}

/** CPU seconds of each measured process, from now on: `stop` gives microseconds per successful operation. */
export function cpuWatch(pids: MeasuredPids): { stop(ok: number): { cpuUsPerOp: number | null; dbCpuUsPerOp: number | null } } {
  const server = readCpuSeconds(pids.server);
  const database = pids.database === undefined ? undefined : readCpuSeconds(pids.database);
  return {
    stop(ok) {
      const perOp = (seconds: number): number | null => (ok === 0 ? null : (seconds * 1e6) / ok);
      return {
        cpuUsPerOp: perOp(readCpuSeconds(pids.server) - server),
        dbCpuUsPerOp: database === undefined ? null : perOp(readCpuSeconds(pids.database!) - database),
      };
    },
  };
}
