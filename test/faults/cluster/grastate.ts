import { readFileSync, writeFileSync } from 'node:fs';

/** What a node's grastate.dat says: the cluster it belonged to, its last committed seqno (-1 after a crash) and whether it may bootstrap. */
export interface GraState {
  uuid: string;
  seqno: number;
  safeToBootstrap: boolean;
}

export function readGrastate(file: string): GraState | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const field = (name: string): string | undefined => new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(text)?.[1];
  return { uuid: field('uuid') ?? '', seqno: Number(field('seqno') ?? -1), safeToBootstrap: field('safe_to_bootstrap') === '1' };
}

/** Sets safe_to_bootstrap: 1, what an operator edits by hand on the node chosen to bootstrap. */
export function markSafeToBootstrap(file: string): void {
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replace(/^safe_to_bootstrap:.*$/m, 'safe_to_bootstrap: 1'));
}

/** A point in the cluster's history: its uuid and the seqno of the last write applied. */
export interface Position {
  uuid: string;
  seqno: number;
}

/** The position `mariadbd --wsrep-recover` logs: `WSREP: Recovered position: <uuid>:<seqno>`; the last one in the log. */
export function recoveredPosition(log: string): Position | undefined {
  const last = [...log.matchAll(/Recovered position:\s*([0-9a-f-]+):(-?\d+)/g)].at(-1);
  return last ? { uuid: last[1]!, seqno: Number(last[2]) } : undefined;
}
