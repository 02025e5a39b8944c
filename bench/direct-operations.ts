import type { ResultSetHeader } from 'mysql2';
import { sql } from '../src/db/statements.js';
import { DEFAULT_SORT } from '../src/users/rules/list-query.js';
import { findStatement, type Statement } from '../src/users/storage/list-statements.js';
import { plainListSql } from './database.js';
import { lookedUpEmail, PAGE_SIZE, pageAfter, type Scenario, SEARCH_PAGE_SIZE, searchText, userFields, userId } from './workload.js';

/** The n-th operation of a scenario as db-direct runs it: the statement the service would run for its HTTP request. */
export interface DirectOperation extends Statement {
  /**
   * `execute`: a prepared statement (binary protocol), as the service reads and writes single users;
   * `raw`: the text protocol with every column left as bytes, as the service reads its lists and pages.
   */
  protocol: 'execute' | 'raw';
  /** True when the result is the one the HTTP answer would be built from. */
  expected(result: unknown): boolean;
}

const rowCount = (count: number) => (result: unknown) => (result as unknown[]).length === count;
const affectedOne = (result: unknown) => (result as ResultSetHeader).affectedRows === 1;

export function directOperation(scenario: Scenario, n: number): DirectOperation {
  switch (scenario.kindOf(n)) {
    case 'get':
      return { protocol: 'execute', sql: sql.getUser, values: [userId(scenario, n)], expected: rowCount(1) };
    case 'list':
      return { protocol: 'execute', sql: plainListSql, values: [], expected: rowCount(scenario.tableRows) };
    case 'page': {
      // The service's own page read: one row beyond the page tells whether a next link is due.
      const after = pageAfter(n);
      const page = findStatement({ filter: {}, sort: DEFAULT_SORT, page: { limit: PAGE_SIZE, after: { value: after, id: after } }, count: false });
      return { protocol: 'raw', ...page, expected: rowCount(Math.min(PAGE_SIZE + 1, scenario.tableRows - after)) };
    }
    case 'email': {
      // The whole-list form the service streams for an unpaged find: one user has the email.
      const found = findStatement({ filter: { email: lookedUpEmail(n) }, sort: DEFAULT_SORT, count: false });
      return { protocol: 'raw', ...found, expected: rowCount(1) };
    }
    case 'search': {
      // The service's page read of a search: every text matches thousands, so the page and the row beyond it are full.
      const found = findStatement({ filter: { q: searchText(n) }, sort: DEFAULT_SORT, page: { limit: SEARCH_PAGE_SIZE }, count: false });
      return { protocol: 'raw', ...found, expected: rowCount(SEARCH_PAGE_SIZE + 1) };
    }
    case 'create': {
      const { name, email } = userFields(n);
      return { protocol: 'execute', sql: sql.createUser, values: [name, email], expected: affectedOne };
    }
    case 'update': {
      const { name, email } = userFields(n);
      return { protocol: 'execute', sql: sql.updateUser, values: [name, email, userId(scenario, n)], expected: affectedOne };
    }
  }
}
