import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { curlVersion, fetchListWithCurl } from '../../bench/list-fetch-curl.js';
import { fetchList, type FetchList } from '../../bench/list-fetch.js';
import { seededUser } from '../../bench/workload.js';
import { userJson } from '../../src/users/rules/user.js';

const ROWS = 2500;

function seededList(rows: number): string {
  const users = Array.from({ length: rows }, (_, i) => {
    const [name, email] = seededUser(i + 1);
    return userJson({ id: i + 1, name, email, created_at: '2026-11-22 07:24:04' });
  });
  return `[${users.join(',')}]`;
}

/** The list the server sends for each path: the whole list, or one broken the way a bad service could break it. */
const bodies: Record<string, string> = {
  '/whole': seededList(ROWS),
  '/missing-row': seededList(ROWS).replace(`,${userJson({ id: 7, name: 'User 7', email: 'user7@example.com', created_at: '2026-11-22 07:24:04' })}`, ''),
  '/cut-short': seededList(ROWS).slice(0, -40),
  '/one-row-short': seededList(ROWS - 1),
};

let server: Server;
let baseUrl: string;

before(async () => {
  server = createServer((req, res) => {
    const body = bodies[req.url!];
    if (body === undefined) return res.writeHead(404).end();
    // Chunked, in pieces, as the service streams a large list.
    res.writeHead(200, { 'Content-Type': 'application/json' });
    for (let at = 0; at < body.length; at += 16 * 1024) res.write(body.slice(at, at + 16 * 1024));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const clients: Array<[string, FetchList, string | false]> = [
  ["Node's HTTP client", fetchList, false],
  ['curl', fetchListWithCurl, curlVersion() ? false : 'curl is not installed'],
];

for (const [name, fetch, skip] of clients) {
  describe(`memory mode's list fetch with ${name}`, { skip }, () => {
    test('the whole seeded list is accepted, its bytes and rows reported', async () => {
      const fetched = await fetch(`${baseUrl}/whole`, ROWS);
      assert.equal(fetched.rows, ROWS);
      assert.equal(fetched.bytes, Buffer.byteLength(bodies['/whole']!));
      assert.ok(fetched.seconds > 0);
    });

    for (const broken of ['/missing-row', '/cut-short', '/one-row-short']) {
      test(`a list that is not the seeded users (${broken.slice(1)}) is refused`, async () => {
        await assert.rejects(fetch(`${baseUrl}${broken}`, ROWS), /not the expected JSON array/);
      });
    }

    test('a status other than 200 is refused', async () => {
      await assert.rejects(fetch(`${baseUrl}/absent`, ROWS), /answered 404/);
    });
  });
}
