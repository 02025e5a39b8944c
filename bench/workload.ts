/**
 * What each scenario does, as a sequence of numbered operations. The HTTP load and db-direct both
 * derive their n-th request from the same functions, so they run the same statements with the same values.
 */
export type OperationKind = 'get' | 'list' | 'page' | 'create' | 'update';

export interface Scenario {
  name: string;
  /** Users in the table when the scenario starts: ids 1..tableRows. */
  tableRows: number;
  kindOf(n: number): OperationKind;
}

/** Point reads and updates rotate over ids 1..this, all of which exist. */
export const ROTATING_IDS = 1000;

/** Users per page in the list-page scenario, and the table it pages through. */
export const PAGE_SIZE = 100;
const PAGED_TABLE_ROWS = 10_000;

export const scenarios: readonly Scenario[] = [
  { name: 'get-one', tableRows: ROTATING_IDS, kindOf: () => 'get' },
  { name: 'list', tableRows: 10, kindOf: () => 'list' },
  { name: 'list-large', tableRows: 1000, kindOf: () => 'list' },
  { name: 'list-page', tableRows: PAGED_TABLE_ROWS, kindOf: () => 'page' },
  { name: 'create', tableRows: ROTATING_IDS, kindOf: () => 'create' },
  { name: 'update', tableRows: ROTATING_IDS, kindOf: () => 'update' },
  { name: 'mixed', tableRows: ROTATING_IDS, kindOf: mixedKind },
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

export function userId(n: number): number {
  return (n % ROTATING_IDS) + 1;
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
  return (Math.imul(n + 1, 2654435761) >>> 0) % PAGED_TABLE_ROWS;
}
