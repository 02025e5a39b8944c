import assert from 'node:assert/strict';
import { test } from 'node:test';
import { directOperation } from '../../bench/direct-operations.js';
import { httpOperation } from '../../bench/http-load.js';
import { parseOptions } from '../../bench/options.js';
import { FINDING_TABLE_ROWS, ROTATING_IDS, scenarioNamed, scenarios, SEARCH_PAGE_SIZE, seededUser } from '../../bench/workload.js';
import { DEFAULT_SORT } from '../../src/users/rules/list-query.js';
import { findStatement } from '../../src/users/storage/list-statements.js';

const query = (path: string) => new URL(path, 'http://bench.invalid').searchParams;

test('find-email and search are scenarios --scenarios accepts, on a million users, only reading', () => {
  assert.deepEqual(parseOptions(['--scenarios', 'find-email,search']).scenarios, ['find-email', 'search']);
  for (const name of ['find-email', 'search']) {
    assert.equal(scenarioNamed(name).tableRows, FINDING_TABLE_ROWS);
    assert.equal(scenarioNamed(name).writes, false);
  }
});

test('find-email: the service is asked for an existing user by email, and db-direct runs the unpaged find of that same email', () => {
  const scenario = scenarioNamed('find-email');
  const asked = new Set<string>();
  for (let n = 0; n < 2 * ROTATING_IDS; n++) {
    const http = httpOperation(scenario, n, 'pw d');
    const params = query(http.path);
    assert.equal(params.get('pwd'), 'pw d');
    assert.equal(http.expectedStatus, 200);
    const email = params.get('email')!;
    asked.add(email);
    const id = Number(/^user(\d+)@example\.com$/.exec(email)?.[1]);
    assert.ok(id >= 1 && id <= FINDING_TABLE_ROWS && seededUser(id)[1] === email, `${email} is a seeded user's`);
    const direct = directOperation(scenario, n);
    const expected = findStatement({ filter: { email }, sort: DEFAULT_SORT, count: false });
    assert.deepEqual([direct.protocol, direct.sql, direct.values], ['raw', expected.sql, expected.values]);
    assert.equal(direct.expected([{ json: Buffer.from('{}') }]), true, 'one user found is the expected answer');
  }
  assert.equal(asked.size, ROTATING_IDS, 'the emails rotate over as many users as the point reads do');
});

test('search: the service is asked for a page of a two-digit text, and db-direct runs that page statement', () => {
  const scenario = scenarioNamed('search');
  for (let n = 0; n < 200; n++) {
    const params = query(httpOperation(scenario, n, 'pw').path);
    const q = params.get('q')!;
    assert.match(q, /^[1-9]\d$/);
    assert.equal(params.get('limit'), String(SEARCH_PAGE_SIZE));
    const direct = directOperation(scenario, n);
    const expected = findStatement({ filter: { q }, sort: DEFAULT_SORT, page: { limit: SEARCH_PAGE_SIZE }, count: false });
    assert.deepEqual([direct.protocol, direct.sql, direct.values], ['raw', expected.sql, expected.values]);
    assert.equal(direct.expected(new Array(SEARCH_PAGE_SIZE + 1).fill({})), true, 'a full page and the row beyond it');
    assert.equal(direct.expected(new Array(SEARCH_PAGE_SIZE).fill({})), false);
  }
});

test('every scenario has a db-direct statement and an HTTP request for each of its operations', () => {
  for (const scenario of scenarios) {
    for (let n = 0; n < 20; n++) {
      assert.ok(directOperation(scenario, n).sql.length > 0, `${scenario.name} #${n}`);
      assert.ok(httpOperation(scenario, n, 'pw').path.startsWith('/api/users'), `${scenario.name} #${n}`);
    }
  }
});
