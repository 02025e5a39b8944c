import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { Certificates } from '../helpers/certificates.js';
import { ServiceProcess } from '../helpers/child-service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { secureRequest } from '../helpers/https-client.js';
import { request } from '../helpers/http.js';
import { pollUntil } from '../helpers/poll-until.js';
import { dbEnv, runScript } from '../helpers/run-script.js';
import { startService, TEST_PASSWORD, type RunningService } from '../helpers/service.js';

/** The exit code of a command given these variables besides the usual environment. */
function runCommand(file: string, args: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    execFile(file, args, { env: { ...process.env, ...env }, timeout: 10_000 }, (error) => resolve(error ? Number((error as { code?: number }).code ?? 1) : 0));
  });
}

const certificates = new Certificates();
const ca = certificates.ca('test-ca');
const first = certificates.signed('server-1', 'service-one', ca);
const second = certificates.signed('server-2', 'service-two', ca);
const otherCa = certificates.ca('other-ca');
const mismatched = certificates.signed('server-3', 'service-three', ca);
const expired = certificates.expired('expired');
const caPem = readFileSync(ca.cert);
after(() => certificates.remove());

function logEntries(service: RunningService): Array<Record<string, unknown>> {
  return service.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('TLS_CERT_FILE and TLS_KEY_FILE: each read and checked at start, a wrong one named in one line, exit 1', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase('tls_start');
  });
  after(() => db.drop());

  const refused: Array<[string, () => Record<string, string>, RegExp]> = [
    ['the certificate missing', () => ({ TLS_CERT_FILE: certificates.file('nothing.crt'), TLS_KEY_FILE: first.key }), /^Invalid configuration: TLS_CERT_FILE \(\S+nothing\.crt\) cannot be read \(no such file\)\n$/],
    ['the key not the certificate\'s', () => ({ TLS_CERT_FILE: first.cert, TLS_KEY_FILE: mismatched.key }), /^Invalid configuration: TLS_KEY_FILE \(\S+\) is not the key of the certificate in TLS_CERT_FILE[^\n]*\n$/],
    ['an expired certificate', () => ({ TLS_CERT_FILE: expired.cert, TLS_KEY_FILE: expired.key }), /^Invalid configuration: TLS_CERT_FILE \(\S+\) holds a certificate that expired on 2020-01-02T00:00:00\.000Z\n$/],
    ['a key file that holds no key', () => ({ TLS_CERT_FILE: first.cert, TLS_KEY_FILE: first.cert }), /^Invalid configuration: TLS_KEY_FILE \(\S+\) holds no PEM private key\n$/],
    ['a certificate file that holds none', () => ({ TLS_CERT_FILE: first.key, TLS_KEY_FILE: first.key }), /^Invalid configuration: TLS_CERT_FILE \(\S+\) holds no PEM certificate\n$/],
    ['only the certificate', () => ({ TLS_CERT_FILE: first.cert }), /^Invalid configuration: TLS_KEY_FILE must be set with TLS_CERT_FILE[^\n]*\n$/],
    ['a client CA without HTTPS', () => ({ TLS_CLIENT_CA_FILE: ca.cert }), /^Invalid configuration: TLS_CLIENT_CA_FILE needs TLS_CERT_FILE and TLS_KEY_FILE[^\n]*\n$/],
    ['a client CA file that holds no certificate', () => ({ TLS_CERT_FILE: first.cert, TLS_KEY_FILE: first.key, TLS_CLIENT_CA_FILE: first.key }), /^Invalid configuration: TLS_CLIENT_CA_FILE \(\S+\) holds no PEM certificate\n$/],
  ];
  for (const [what, env, message] of refused) {
    test(`${what} -> refused, naming the variable`, async () => {
      const { code, stdout, stderr } = await runScript('src/commands/start.ts', { ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD, ...env() });
      assert.equal(code, 1);
      assert.match(stderr, message);
      assert.equal(stdout, '', 'nothing started');
    });
  }
});

describe('HTTPS on PORT', () => {
  let service: RunningService;
  const live = { certFile: certificates.file('live.crt'), keyFile: certificates.file('live.key') };
  before(async () => {
    copyFileSync(first.cert, live.certFile);
    copyFileSync(first.key, live.keyFile);
    service = await startService('tls_https', { tls: live, metrics: { onApiPort: true } });
  });
  after(() => service.close());

  test('the contract\'s answers, health probes, metrics and the docs page are served over HTTPS', async () => {
    assert.match(service.baseUrl, /^https:/);
    const one = await secureRequest(`${service.baseUrl}/api/users/1`, { ca: caPem });
    assert.equal(one.status, 200);
    assert.equal((JSON.parse(one.body) as { id: number }).id, 1);
    const list = await secureRequest(`${service.baseUrl}/api/users?pwd=${TEST_PASSWORD}`, { ca: caPem });
    assert.equal(list.status, 200);
    const created = await secureRequest(`${service.baseUrl}/api/users`, { ca: caPem, method: 'POST', body: { name: 'Secure', email: 'secure@example.com' } });
    assert.equal(created.status, 201);
    for (const path of ['/healthz', '/readyz', '/metrics', '/apidocs', '/openapi.json']) {
      assert.equal((await secureRequest(`${service.baseUrl}${path}`, { ca: caPem })).status, 200, path);
    }
    assert.equal(one.peer.subject.CN, 'service-one');
  });

  test("the image's HEALTHCHECK speaks HTTPS when TLS_CERT_FILE is set: exit 0 against this service, 1 against a port with nothing", async () => {
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    const command = JSON.parse(/CMD (\["node", "-e", .*\])/.exec(dockerfile)![1]!) as string[];
    const run = (port: string) => runCommand(process.execPath, command.slice(1), { PORT: port, TLS_CERT_FILE: live.certFile });
    assert.equal(await run(new URL(service.baseUrl).port), 0);
    assert.equal(await run('9'), 1);
  });

  test('plain HTTP on the HTTPS port gets no answer of the API', async () => {
    const plain = await request(service.baseUrl.replace('https:', 'http:'), 'GET', '/api/users/1').catch(() => undefined);
    assert.ok(plain === undefined || plain.status === 400, 'no JSON user over plain HTTP');
  });

  test('TLS 1.1 is refused: TLS 1.2 at least', async () => {
    const port = Number(new URL(service.baseUrl).port);
    const outcome = await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, ca: caPem, maxVersion: 'TLSv1.1', minVersion: 'TLSv1' });
      socket.once('secureConnect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (error) => resolve(error.message));
    });
    assert.notEqual(outcome, 'connected');
  });

  test('new files are taken without a restart, while an open keep-alive connection keeps working', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await secureRequest(`${service.baseUrl}/api/users/1`, { ca: caPem, agent });
      assert.equal(before.peer.subject.CN, 'service-one');
      copyFileSync(second.cert, live.certFile);
      copyFileSync(second.key, live.keyFile);
      await pollUntil('the reload', () => logEntries(service).find((entry) => entry.msg === 'TLS certificates reloaded'), { timeoutMs: 15_000 });
      const kept = await secureRequest(`${service.baseUrl}/api/users/2`, { ca: caPem, agent });
      assert.equal(kept.status, 200);
      assert.equal(kept.localPort, before.localPort, 'the same connection served it');
      assert.equal(kept.peer.subject.CN, 'service-one', 'a connection keeps the certificate it began with');
      const fresh = await secureRequest(`${service.baseUrl}/api/users/1`, { ca: caPem });
      assert.equal(fresh.status, 200);
      assert.equal(fresh.peer.subject.CN, 'service-two', 'a new connection gets the new certificate');
    } finally {
      agent.destroy();
    }
  });

  test('a reload that fails keeps the certificates in use and says why in one line', async () => {
    writeFileSync(live.certFile, 'not a certificate\n');
    const warning = await pollUntil('the failed reload', () => logEntries(service).find((entry) => entry.level === 'warn' && String(entry.msg).startsWith('TLS reload failed')), { timeoutMs: 15_000 });
    assert.match(String(warning.msg), /TLS_CERT_FILE \(\S+\) holds no PEM certificate/);
    const still = await secureRequest(`${service.baseUrl}/api/users/1`, { ca: caPem });
    assert.equal(still.status, 200);
    assert.equal(still.peer.subject.CN, 'service-two');
    copyFileSync(second.cert, live.certFile);
  });
});

describe('SIGHUP and WORKERS=2: certificates reloaded in every worker, sessions resumed across workers', () => {
  let db: TestDatabase;
  let child: ServiceProcess;
  let port: number;
  const live = { cert: certificates.file('hup.crt'), key: certificates.file('hup.key') };
  before(async () => {
    db = await createTestDatabase('tls_workers');
    copyFileSync(first.cert, live.cert);
    copyFileSync(first.key, live.key);
    child = new ServiceProcess({ ...dbEnv(db.config), PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: TEST_PASSWORD, WORKERS: '2', TLS_CERT_FILE: live.cert, TLS_KEY_FILE: live.key });
    port = await child.port();
    await pollUntil('both workers to serve', () => (child.entries().filter((entry) => entry.msg === 'schema ready').length >= 2 ? true : undefined), { timeoutMs: 60_000 });
  });
  after(async () => {
    await child.stop();
    await db.drop();
  });

  test('the start-up line says tls on', async () => {
    const listening = await child.logEntry('listening');
    assert.equal((listening.features as Record<string, unknown>).tls, 'on');
  });

  test('a session made with one worker is resumed on every later connection, whichever worker takes it (TLS 1.2)', async () => {
    const handshake = (session?: Buffer) =>
      new Promise<{ reused: boolean; session: Buffer | undefined }>((resolve, reject) => {
        const socket: TLSSocket = connect({ host: '127.0.0.1', port, ca: caPem, servername: 'localhost', maxVersion: 'TLSv1.2', ...(session ? { session } : {}) });
        socket.once('secureConnect', () => {
          const result = { reused: socket.isSessionReused(), session: socket.getSession() };
          socket.end();
          resolve(result);
        });
        socket.once('error', reject);
      });
    const { session } = await handshake();
    assert.ok(session, 'a session to resume');
    const reused: boolean[] = [];
    for (let i = 0; i < 12; i++) reused.push((await handshake(session)).reused);
    assert.deepEqual(reused, Array(12).fill(true));
  });

  test('SIGHUP to the primary -> every worker reloads and serves the new certificate', async () => {
    copyFileSync(second.cert, live.cert);
    copyFileSync(second.key, live.key);
    const before = child.entries().filter((entry) => entry.msg === 'TLS certificates reloaded').length;
    child.signal('SIGHUP');
    await pollUntil('two reloads', () => (child.entries().filter((entry) => entry.msg === 'TLS certificates reloaded').length >= before + 2 ? true : undefined), { timeoutMs: 15_000 });
    for (let i = 0; i < 6; i++) {
      const answer = await secureRequest(`https://127.0.0.1:${port}/api/users/1`, { ca: caPem });
      assert.equal(answer.status, 200);
      assert.equal(answer.peer.subject.CN, 'service-two');
    }
  });
});

describe('TLS_CLIENT_CA_FILE: mutual TLS, the certificate\'s CN a principal of API_KEYS_FILE', () => {
  let service: RunningService;
  const clientCa = certificates.ca('client-ca');
  const billing = certificates.signed('billing', 'billing.internal', clientCa, true);
  const stranger = certificates.signed('stranger', 'stranger.internal', clientCa, true);
  const forged = certificates.signed('forged', 'billing.internal', otherCa, true);
  const keysFile = certificates.file('api-keys');
  before(async () => {
    writeFileSync(keysFile, '# internal callers\nbilling users:read,users:write cert:billing.internal\n');
    service = await startService('tls_mutual', {
      tls: { certFile: first.cert, keyFile: first.key, clientCaFile: clientCa.cert },
      auth: { mode: 'writes', apiKeysFile: keysFile },
    });
  });
  after(() => service.close());

  const client = (pair: { cert: string; key: string }) => ({ ca: caPem, cert: readFileSync(pair.cert), key: readFileSync(pair.key) });

  test('a client without a certificate is refused', async () => {
    await assert.rejects(secureRequest(`${service.baseUrl}/api/users/1`, { ca: caPem }));
  });

  test('a certificate signed by another CA is refused, whatever its CN', async () => {
    await assert.rejects(secureRequest(`${service.baseUrl}/api/users/1`, client(forged)));
  });

  test('a certificate named in API_KEYS_FILE writes without a bearer token, logged as its principal', async () => {
    const created = await secureRequest(`${service.baseUrl}/api/users`, { ...client(billing), method: 'POST', body: { name: 'Billed', email: 'billed@example.com' }, headers: { 'x-request-id': 'mtls-create' } });
    assert.equal(created.status, 201, created.body);
    const line = await pollUntil('the access line', () => logEntries(service).find((entry) => entry.requestId === 'mtls-create'), { timeoutMs: 5000 });
    assert.equal(line.principal, 'cert:billing');
  });

  test('a certificate of the CA that no line names reads, but needs a token to write (401)', async () => {
    assert.equal((await secureRequest(`${service.baseUrl}/api/users/1`, client(stranger))).status, 200);
    const refused = await secureRequest(`${service.baseUrl}/api/users`, { ...client(stranger), method: 'POST', body: { name: 'No', email: 'no@example.com' } });
    assert.equal(refused.status, 401);
    assert.deepEqual(JSON.parse(refused.body), { error: 'Authentication required' });
  });
});

describe('TLS_TICKET_KEYS: instances sharing the keys resume each other\'s sessions', () => {
  const services: RunningService[] = [];
  const keys = Buffer.alloc(48, 7);
  before(async () => {
    const tls = { certFile: first.cert, keyFile: first.key };
    services.push(await startService('tls_tickets', { tls: { ...tls, ticketKeys: keys } }));
    services.push(await startService('tls_tickets_b', { db: services[0]!.db, tls: { ...tls, ticketKeys: keys } }));
    services.push(await startService('tls_tickets_c', { db: services[0]!.db, tls }));
  });
  after(async () => {
    for (const service of services.slice(1)) await service.close();
    await services[0]?.close();
  });

  /** A TLS 1.3 handshake and one request; the session ticket arrives after the handshake. */
  const handshake = (service: RunningService, session?: Buffer) =>
    new Promise<{ reused: boolean; session: Buffer | undefined }>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: Number(new URL(service.baseUrl).port), ca: caPem, servername: 'localhost', ...(session ? { session } : {}) });
      let ticket: Buffer | undefined;
      socket.on('session', (given: Buffer) => (ticket = given));
      socket.once('secureConnect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'));
      socket.on('data', () => {});
      socket.once('end', () => resolve({ reused: socket.isSessionReused(), session: ticket }));
      socket.once('error', reject);
    });

  test('a session of one instance is resumed by another with the same keys, and not by one without them', async () => {
    const { session } = await handshake(services[0]!);
    assert.ok(session, 'a session ticket');
    assert.equal((await handshake(services[1]!, session)).reused, true);
    assert.equal((await handshake(services[2]!, session)).reused, false);
  });
});
