import { randomBytes } from 'node:crypto';
import { ListCursors } from '../src/users/rules/list-cursor.js';
import type { ListRequest } from '../src/users/rules/list-query.js';
import { createBenchDatabase } from './database.js';
import { onCleanup } from './lifecycle.js';
import type { BenchOptions } from './options.js';
import { describeMachine, fixed, formatTable, machineLine, progress, writeResults, type Machine } from './report.js';
import { startService } from './service.js';
import { closeTimedConnections, timedRequest, type TimedAnswer } from './timed-request.js';
import { seededUser } from './workload.js';

/** One kind of request, as the finding table names it; `send` makes the request(s) and returns the timed one. */
interface FindingCase {
  label: string;
  send(get: Get): Promise<TimedAnswer>;
}

type Get = (query: string, count?: boolean) => Promise<TimedAnswer>;

export interface FindingResult {
  label: string;
  medianMs: number;
  fastestMs: number;
  slowestMs: number;
  /** Users in the timed answer, and its X-Total-Count if it had one. */
  users: number;
  total: string | undefined;
}

export interface FindingReport {
  date: string;
  machine: Machine;
  rows: number;
  tries: number;
  loadSeconds: number;
  results: FindingResult[];
}

const PAGE = 20;
/** The deep page starts after this user in the name order: past every name from "User 1" to "User 4…". */
const DEEP_AFTER_ID = 5;
const LINKS_FOLLOWED = 3;

/**
 * `--mode finding`: what each way of finding users costs on a table of `rows` seeded users, through
 * the real service over HTTP, one request at a time (no other load): every request `tries` times,
 * in rounds over all of them after one unmeasured round, the median reported. Writes bench/results/finding-latest.json.
 */
export async function runFinding(options: BenchOptions): Promise<void> {
  const db = await createBenchDatabase();
  onCleanup(() => db.drop());
  const password = `bench-${randomBytes(6).toString('hex')}`;
  const service = await startService(db.config, password, options);
  progress(`loading ${options.rows} users into ${db.config.database}`);
  const loadStarted = performance.now();
  await db.resetUsers(options.rows, 'reads');
  const loadSeconds = (performance.now() - loadStarted) / 1000;

  const get: Get = async (query, count = false) => {
    const headers: Record<string, string> = count ? { Prefer: 'count=exact' } : {};
    const answer = await timedRequest(service.baseUrl, 'GET', `/api/users?pwd=${encodeURIComponent(password)}${query}`, headers);
    if (answer.status !== 200) throw new Error(`GET …${query} answered ${answer.status}: ${answer.body.slice(0, 200)}`);
    return answer;
  };
  const cases = findingCases(options.rows, password);
  const times = cases.map((): number[] => []);
  const last: TimedAnswer[] = [];
  for (let round = 0; round <= options.tries; round++) {
    progress(round === 0 ? 'unmeasured round' : `round ${round}/${options.tries}`);
    for (const [i, one] of cases.entries()) {
      const answer = await one.send(get);
      if (round > 0) times[i]!.push(answer.ms);
      last[i] = answer;
    }
  }
  closeTimedConnections();
  await service.stop();

  const results = cases.map((one, i): FindingResult => {
    const sorted = [...times[i]!].sort((a, b) => a - b);
    const total = last[i]!.headers['x-total-count'];
    return {
      label: one.label,
      medianMs: sorted[Math.floor(sorted.length / 2)]!,
      fastestMs: sorted[0]!,
      slowestMs: sorted[sorted.length - 1]!,
      users: (JSON.parse(last[i]!.body) as unknown[]).length,
      total: typeof total === 'string' ? total : undefined,
    };
  });
  const report: FindingReport = {
    date: new Date().toISOString(),
    machine: describeMachine(await db.serverVersion()),
    rows: options.rows,
    tries: options.tries,
    loadSeconds,
    results,
  };
  console.log(findingTable(report));
  progress(`results written to ${await writeResults('finding-latest.json', report)}`);
}

/** The requests measured; the labels say what each shows. */
export function findingCases(rows: number, password: string): FindingCase[] {
  const email = encodeURIComponent(seededUser(Math.max(1, Math.floor(rows * 0.424242)))[1]);
  const byName: ListRequest = { filter: {}, sort: { field: 'name', descending: false }, page: { limit: PAGE }, count: false };
  const deepCursor = new ListCursors(password).make(byName, { value: seededUser(DEEP_AFTER_ID)[0], id: DEEP_AFTER_ID });
  const deep = `&sort=name&limit=${PAGE}&cursor=${deepCursor}`;
  const plain = (label: string, query: string, count = false): FindingCase => ({ label, send: (get) => get(query, count) });
  return [
    plain(`q, no match: q=nobody-has-this&limit=${PAGE} (a full scan)`, `&q=nobody-has-this&limit=${PAGE}`),
    plain(`q, frequent match: q=42&limit=${PAGE}`, `&q=42&limit=${PAGE}`),
    plain(`prefix, few match: prefix=user4242&limit=${PAGE}`, `&prefix=user4242&limit=${PAGE}`),
    plain(`prefix, many match: prefix=User 9&limit=${PAGE}`, `&prefix=User%209&limit=${PAGE}`),
    plain(`email=${decodeURIComponent(email)}`, `&email=${email}`),
    plain(`sort=name&limit=${PAGE}, first page`, `&sort=name&limit=${PAGE}`),
    plain(`sort=name&limit=${PAGE}, page after "${seededUser(DEEP_AFTER_ID)[0]}" (cursor)`, deep),
    { label: `  the page ${LINKS_FOLLOWED} Links further`, send: (get) => followLinks(get, deep, LINKS_FOLLOWED) },
    plain(`limit=${PAGE} (plain list page)`, `&limit=${PAGE}`),
    plain(`limit=${PAGE}, Prefer: count=exact`, `&limit=${PAGE}`, true),
    plain(`q=42&limit=${PAGE}, Prefer: count=exact`, `&q=42&limit=${PAGE}`, true),
    plain(`email=…, Prefer: count=exact`, `&email=${email}`, true),
  ];
}

/** Requests `query`, then follows `links` next Links; the last page's answer is the one timed. */
async function followLinks(get: Get, query: string, links: number): Promise<TimedAnswer> {
  let answer = await get(query);
  for (let i = 0; i < links; i++) {
    const link = answer.headers.link;
    const target = typeof link === 'string' ? /^<\/api\/users\?([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
    if (target === undefined) throw new Error(`no next Link to follow: ${String(link)}`);
    // The Link never carries the password: it is added as a client adds it.
    answer = await get(`&${target}`);
  }
  return answer;
}

export function findingTable(report: FindingReport): string {
  const rows = report.results.map((r) => [
    r.label,
    fixed(r.medianMs, 1),
    fixed(r.fastestMs, 1),
    fixed(r.slowestMs, 1),
    String(r.users),
    r.total ?? '-',
  ]);
  const median = (label: string) => report.results.find((r) => r.label === label)?.medianMs ?? NaN;
  const countCost = (withCount: string, without: string) => fixed(median(withCount) - median(without), 1);
  const plainLabel = `limit=${PAGE} (plain list page)`;
  const qLabel = `q, frequent match: q=42&limit=${PAGE}`;
  const emailLabel = report.results.find((r) => r.label.startsWith('email='))!.label;
  return [
    `${machineLine(report.machine)}; ${report.rows} users (loaded in ${fixed(report.loadSeconds, 1)} s)`,
    `Each request alone, through the service over HTTP; ms from sending it to the last byte, the median of ${report.tries} tries.`,
    formatTable(['request', 'median ms', 'fastest', 'slowest', 'users', 'X-Total-Count'], rows),
    `Prefer: count=exact adds (medians): plain list page ${countCost(`limit=${PAGE}, Prefer: count=exact`, plainLabel)} ms, ` +
      `q ${countCost(`q=42&limit=${PAGE}, Prefer: count=exact`, qLabel)} ms, email ${countCost('email=…, Prefer: count=exact', emailLabel)} ms.`,
  ].join('\n');
}
