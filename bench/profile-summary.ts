/**
 * `npx tsx bench/profile-summary.ts <file.cpuprofile> [--top 25]`: where a CPU profile written by
 * `npm run bench -- --profile` (node --cpu-prof) spent its time. The profile covers the service's
 * whole run, also while the benchmark measures the other sides and the service waits, so shares are
 * of its busy samples (the idle ones only counted): self time by where the code lives (the
 * service's folders, node's internals, mysql2, ...) and by function, and total time by function
 * (the function and everything it called).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileLine {
  name: string;
  share: number;
}

export interface ProfileSummary {
  /** Samples in which the thread was busy (not idle), as a share of all. */
  busy: number;
  /** Self time by place, as shares of the busy samples. */
  places: ProfileLine[];
  /** Self time by function, as shares of the busy samples. */
  functions: ProfileLine[];
  /** Time in the function and all it called, as shares of the busy samples (a recursive function counted once per sample). */
  totals: ProfileLine[];
}

/** V8's name for the samples in which the thread waited for work. */
const IDLE = '(idle)';

export function summarise(profile: Profile): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const hits = new Map<number, number>();
  if (profile.samples) for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  else for (const node of profile.nodes) hits.set(node.id, node.hitCount ?? 0);
  let all = 0;
  let busy = 0;
  const functions = new Map<string, number>();
  const places = new Map<string, number>();
  const totals = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, count: number): void => {
    map.set(key, (map.get(key) ?? 0) + count);
  };
  for (const [id, count] of hits) {
    all += count;
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === IDLE && !frame.url) continue;
    busy += count;
    add(functions, nameOf(frame), count);
    add(places, placeOf(frame), count);
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) onStack.add(nameOf(byId.get(at)!.callFrame));
    for (const name of onStack) add(totals, name, count);
  }
  const sorted = (map: Map<string, number>): ProfileLine[] =>
    [...map].map(([name, n]) => ({ name, share: n / (busy || 1) })).sort((a, b) => b.share - a.share);
  return { busy: busy / (all || 1), places: sorted(places), functions: sorted(functions), totals: sorted(totals) };
}

function nameOf(frame: ProfileNode['callFrame']): string {
  return `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
}

function shortUrl(url: string): string {
  return url.replace(/^file:\/\//, '').replace(/^.*\/(src|node_modules)\//, '$1/').replace(/^.*\/bench\/results\/build\//, '');
}

/** The service's folder, a package, node's internals, or what V8 names GC and the like. */
function placeOf(frame: ProfileNode['callFrame']): string {
  const url = shortUrl(frame.url);
  if (!frame.url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  if (url.startsWith('node:')) return `node ${url.slice(5).split('/')[0]}`;
  const pkg = /node_modules\/(@[^/]+\/[^/]+|[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const folder = /src\/(.+)\/[^/]+$/.exec(url) ?? /src\/([^/]+)$/.exec(url);
  return folder ? `src/${folder[1]}` : url;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
  if (positionals.length !== 1) {
    console.error('Usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [--top N]');
    process.exit(2);
  }
  const summary = summarise(JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Profile);
  const top = Number(values.top);
  const print = (title: string, lines: ProfileLine[]): void => {
    console.log(title);
    for (const line of lines.slice(0, top)) console.log(`${(line.share * 100).toFixed(1).padStart(6)}%  ${line.name}`);
  };
  console.log(`Busy in ${(summary.busy * 100).toFixed(1)}% of the samples; every share below is of those.\n`);
  print('Self time by place:', summary.places);
  print('\nSelf time by function:', summary.functions);
  print('\nTotal time by function (itself and all it called):', summary.totals);
}
