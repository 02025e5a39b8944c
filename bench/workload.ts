/**
 * What each scenario does, as a sequence of numbered operations. The HTTP load and db-direct both
 * derive their n-th request from the same functions, so they run the same statements with the same values.
 */
export type OperationKind = 'get' | 'list' | 'page' | 'email' | 'search' | 'create' | 'update';

export interface Scenario {
  name: string;
  /** Users in the table when the scenario starts: ids 1..tableRows. */
  tableRows: number;
  /** Whether any of its operations writes; a table only read can serve the next run as it is. */
  writes: boolean;
  kindOf(n: number): OperationKind;
  /** Point reads and updates rotate over ids 1..this (ROTATING_IDS unless set). */
  ids?: number;
}

/** Point reads and updates rotate over ids 1..this, all of which exist. */
export const ROTATING_IDS = 1000;

/** The users update-hot's writes concentrate on: every batch of concurrent updates holds several changes of one user. */
export const HOT_IDS = 10;

/** Users per page in the list-page scenario, and the table it pages through. */
export const PAGE_SIZE = 100;
const PAGED_TABLE_ROWS = 10_000;
/** The table the finding scenarios search: large enough that only an index makes a lookup cheap. */
export const FINDING_TABLE_ROWS = 1_000_000;
/** Users per page in the search scenario, as a search box would show them. */
export const SEARCH_PAGE_SIZE = 20;

export const scenarios: readonly Scenario[] = [
  { name: 'get-one', tableRows: ROTATING_IDS, writes: false, kindOf: () => 'get' },
  { name: 'list', tableRows: 10, writes: false, kindOf: () => 'list' },
  { name: 'list-large', tableRows: 1000, writes: false, kindOf: () => 'list' },
  { name: 'list-page', tableRows: PAGED_TABLE_ROWS, writes: false, kindOf: () => 'page' },
  { name: 'find-email', tableRows: FINDING_TABLE_ROWS, writes: false, kindOf: () => 'email' },
  { name: 'search', tableRows: FINDING_TABLE_ROWS, writes: false, kindOf: () => 'search' },
  { name: 'create', tableRows: ROTATING_IDS, writes: true, kindOf: () => 'create' },
  { name: 'update', tableRows: ROTATING_IDS, writes: true, kindOf: () => 'update' },
  { name: 'update-hot', tableRows: ROTATING_IDS, writes: true, kindOf: () => 'update', ids: HOT_IDS },
  { name: 'mixed', tableRows: ROTATING_IDS, writes: true, kindOf: mixedKind },
];

/** 80% get-one, 10% create, 10% update, interleaved. */
function mixedKind(n: number): OperationKind {
  const slot = n % 10;
  return slot < 8 ? 'get' : slot === 8 ? 'create' : 'update';
}

export function scenarioNamed(name: string): Scenario {
  const scenario = scenarios.find((s) => s.name === name);
  if (!scenario) throw new Error(`unknown scenario ${name}`);
  return scenario;
}

/** The user the n-th point read or update of the scenario names. */
export function userId(scenario: Pick<Scenario, 'ids'>, n: number): number {
  return (n % (scenario.ids ?? ROTATING_IDS)) + 1;
}

/** Distinct for every n, so an update always changes the row (an unchanged row would be a cheaper write). */
export function userFields(n: number): { name: string; email: string } {
  return { name: `Bench User ${n}`, email: `bench.user${n}@example.com` };
}

/** The users a table is filled with before a scenario: row i (1-based) has id i. */
export function seededUser(i: number): [name: string, email: string] {
  return [`User ${i}`, `user${i}@example.com`];
}

/** The n-th page's `after`: spread pseudo-randomly over the table (the same for every driver), so pages start at any depth. */
export function pageAfter(n: number): number {
  return spread(n, PAGED_TABLE_ROWS);
}

/**
 * The email the n-th lookup asks for: an existing user's, ROTATING_IDS of them spread over the
 * finding table (the same for every driver; wrk cycles through a multiple of ROTATING_IDS requests).
 */
export function lookedUpEmail(n: number): string {
  return seededUser(spread(n % ROTATING_IDS, FINDING_TABLE_ROWS) + 1)[1];
}

/**
 * The n-th search's text: a two-digit number, 10 to 99. Each is in the names and emails of about
 * one user in twenty (ids such as 42, 142, 420-429), so a page of SEARCH_PAGE_SIZE fills within the
 * first 1 000-1 200 users in id order, and it is a true substring search: no index serves it.
 */
export function searchText(n: number): string {
  return String(10 + (n % 90));
}

/** A pseudo-random number in 0..range-1 for n, the same for every driver. */
function spread(n: number, range: number): number {
  return (Math.imul(n + 1, 2654435761) >>> 0) % range;
}
