/**
 * `npx tsx bench/profile-summary.ts <file.cpuprofile> [--top 25]`: where a CPU profile written by
 * `npm run bench -- --profile` (node --cpu-prof) spent its time: the functions by self time, and
 * the same summed by where their code lives (the service's folders, node's internals, mysql2, ...).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
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

/** Self time by function and by place, as shares of all samples (idle and GC included, named as such). */
export function summarise(profile: Profile): { functions: ProfileLine[]; places: ProfileLine[] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const hits = new Map<number, number>();
  if (profile.samples) for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  else for (const node of profile.nodes) hits.set(node.id, node.hitCount ?? 0);
  const total = [...hits.values()].reduce((sum, n) => sum + n, 0) || 1;
  const functions = new Map<string, number>();
  const places = new Map<string, number>();
  for (const [id, count] of hits) {
    const frame = byId.get(id)!.callFrame;
    const name = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + count);
    const place = placeOf(frame);
    places.set(place, (places.get(place) ?? 0) + count);
  }
  const sorted = (map: Map<string, number>): ProfileLine[] => [...map].map(([name, n]) => ({ name, share: n / total })).sort((a, b) => b.share - a.share);
  return { functions: sorted(functions), places: sorted(places) };
}

function shortUrl(url: string): string {
  return url.replace(/^file:\/\//, '').replace(/^.*\/(src|node_modules)\//, '$1/').replace(/^.*\/bench\/results\/build\//, '');
}

/** The service's folder, a package, node's internals, or what V8 names idle time, GC and the like. */
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
  const { functions, places } = summarise(JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Profile);
  const top = Number(values.top);
  const print = (title: string, lines: ProfileLine[]): void => {
    console.log(title);
    for (const line of lines.slice(0, top)) console.log(`${(line.share * 100).toFixed(1).padStart(6)}%  ${line.name}`);
  };
  print('Self time by place:', places);
  print('\nSelf time by function:', functions);
}
