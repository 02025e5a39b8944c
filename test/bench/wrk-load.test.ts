import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { httpOperation } from '../../bench/http-load.js';
import { parseOptions } from '../../bench/options.js';
import { luaString, measureHttpWithWrk, wrkVersion } from '../../bench/wrk-load.js';
import { scenarioNamed } from '../../bench/workload.js';

describe('luaString', () => {
  test('printable ASCII stays as it is; quotes, backslashes, control and non-ASCII bytes become decimal escapes', () => {
    assert.equal(luaString('GET /api/users/7'), '"GET /api/users/7"');
    assert.equal(luaString('a"b\\c\n'), '"a\\034b\\092c\\010"');
    assert.equal(luaString('é'), '"\\195\\169"');
  });
});

interface Received {
  method: string;
  url: string;
  body: string;
}

describe('wrk driver', { skip: wrkVersion() ? false : 'wrk is not installed' }, () => {
  const received: Received[] = [];
  let server: Server;
  let baseUrl: string;
  /** Every fifth request is answered 500 from the moment this is set. */
  let failSome = false;

  before(async () => {
    let count = 0;
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        received.push({ method: req.method!, url: req.url!, body });
        const status = failSome && ++count % 5 === 0 ? 500 : req.method === 'POST' ? 201 : 200;
        res.writeHead(status, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const options = parseOptions(['--duration', '1', '--warmup', '0', '--connections', '1']);

  test('sends the scenario requests in order, with their bodies, and counts every expected answer as throughput', async () => {
    received.length = 0;
    const scenario = scenarioNamed('mixed');
    const measured = await measureHttpWithWrk(baseUrl, { server: process.pid }, scenario, 'pw', options);
    assert.ok(received.length >= 20, `only ${received.length} requests arrived`);
    const asSent = (n: number): Received => {
      const { method, path, body } = httpOperation(scenario, n, 'pw');
      return { method, url: path, body: body ?? '' };
    };
    // wrk asks the script for one request before the run, to check it, and never sends that one.
    const first = [0, 1].find((n) => JSON.stringify(asSent(n)) === JSON.stringify(received[0]));
    assert.notEqual(first, undefined, `first request ${JSON.stringify(received[0])}`);
    received.slice(0, 20).forEach((request, i) => assert.deepEqual(request, asSent(first! + i), `request ${i}`));
    assert.equal(measured.errors, 0);
    assert.ok(measured.ok > 0 && measured.reqPerSec > 0);
  });

  test('an answer with a status the scenario does not expect is an error, by status, and not throughput', async () => {
    received.length = 0;
    failSome = true;
    try {
      const measured = await measureHttpWithWrk(baseUrl, { server: process.pid }, scenarioNamed('get-one'), 'pw', options);
      assert.ok((measured.errorKinds['500'] ?? 0) > 0, JSON.stringify(measured.errorKinds));
      assert.equal(measured.errors, measured.errorKinds['500']);
      // wrk may stop with requests still in flight: those arrived but were never counted.
      assert.ok(received.length - measured.ok - measured.errors <= options.connections);
      assert.ok(received.length >= measured.ok + measured.errors);
    } finally {
      failSome = false;
    }
  });
});
