import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { projectFile } from '../../src/paths.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { request } from '../helpers/http.js';
import { embeddedWorkDir, serversOn } from '../helpers/mariadb-processes.js';
import { OtlpReceiver } from '../helpers/otlp-receiver.js';
import { pollUntil } from '../helpers/poll-until.js';
import { privateMariaDbSkipReason } from '../helpers/private-mariadb.js';
import { childEnv, dbEnv } from '../helpers/run-script.js';

/**
 * `npm run start:prod` as a production host runs it: the compiled entry in a folder holding only
 * what the image holds (package.json, openapi.json, schema.sql, dist/ and the production
 * dependencies), so that an import of tsx, TypeScript or any other dev dependency would fail here.
 */
const packageJson = JSON.parse(readFileSync(projectFile('package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
  scripts: Record<string, string>;
};
/** What `npm ci --omit=dev` installs, as the image does: the dependencies and the optional ones (OpenTelemetry's, loaded only with OTEL_*). */
const runtimePackages = [...Object.keys(packageJson.dependencies), ...Object.keys(packageJson.optionalDependencies ?? {})];
const { workDir } = embeddedWorkDir('usvc-prod-');

before(() => {
  const built = spawnSync(projectFile('node_modules/.bin/tsc'), ['-p', projectFile('tsconfig.build.json'), '--outDir', join(workDir, 'dist')], {
    encoding: 'utf8',
  });
  assert.equal(built.status, 0, built.stdout + built.stderr);
  for (const file of ['package.json', 'openapi.json', 'schema.sql']) copyFileSync(projectFile(file), join(workDir, file));
  // Only the direct runtime dependencies: theirs resolve beside their real folders, as they would installed.
  mkdirSync(join(workDir, 'node_modules'));
  for (const name of runtimePackages) {
    // A scoped package (@opentelemetry/api) sits in its scope's folder.
    if (name.startsWith('@')) mkdirSync(join(workDir, 'node_modules', name.split('/')[0]!), { recursive: true });
    symlinkSync(projectFile(join('node_modules', name)), join(workDir, 'node_modules', name));
  }
});

/** Every package a compiled file imports, by its bare name (`mysql2/promise` -> `mysql2`). */
function packagesImported(dir: string): Set<string> {
  const found = new Set<string>();
  const specifier = /(?:\bfrom\s*|\bimport\s*\(?\s*|\bresolve\()\s*['"]([^'"]+)['"]/g;
  for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.js'))) {
    for (const [, name] of readFileSync(join(dir, file), 'utf8').matchAll(specifier)) {
      if (name!.startsWith('.')) continue;
      const parts = name!.split('/');
      found.add(name!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
    }
  }
  return found;
}

describe('the compiled service needs only its runtime dependencies', () => {
  test('compiled files import only node builtins and the dependencies of package.json', () => {
    const imported = [...packagesImported(join(workDir, 'dist'))];
    const builtin = new Set(builtinModules);
    const outside = imported.filter((name) => !(name.startsWith('node:') && builtin.has(name.slice(5))) && !runtimePackages.includes(name));
    assert.deepEqual(outside, []);
    assert.ok(imported.includes('mysql2') && imported.includes('jose') && imported.includes('swagger-ui-dist'), imported.join(', '));
  });

  test('no runtime package needs a peer at run time: the only peers are typings (left out with --legacy-peer-deps)', () => {
    const seen = new Set<string>();
    const peers: string[] = [];
    const visit = (name: string): void => {
      if (seen.has(name)) return;
      seen.add(name);
      const manifest = JSON.parse(readFileSync(projectFile(join('node_modules', name, 'package.json')), 'utf8')) as {
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        peerDependenciesMeta?: Record<string, { optional?: boolean }>;
      };
      for (const peer of Object.keys(manifest.peerDependencies ?? {})) {
        if (!manifest.peerDependenciesMeta?.[peer]?.optional) peers.push(`${name} -> ${peer}`);
      }
      for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(dependency);
    };
    for (const name of runtimePackages) visit(name);
    // A peer the package lists itself (OpenTelemetry's API, beside its SDK) is installed whatever npm does with peers.
    assert.deepEqual(peers.filter((peer) => !/ -> @types\//.test(peer) && !runtimePackages.includes(peer.split(' -> ')[1]!)), []);
  });
});

/** npm itself: the one running this suite when there is one, else the one on PATH; in a process group of its own. */
function npmStartProd(env: Record<string, string>) {
  const npmCli = process.env.npm_execpath;
  const [command, prefix] = npmCli?.endsWith('.js') ? [process.execPath, [npmCli]] : ['npm', []];
  const child = spawn(command, [...prefix, 'run', '--silent', 'start:prod'], {
    cwd: workDir,
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', ACCESS_PASSWORD: 'prod-secret', LOG_FORMAT: 'json', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const listening = (): Promise<Record<string, unknown>> =>
    pollUntil(
      'the listening line',
      () => {
        if (child.exitCode !== null) throw new Error(`start:prod exited ${child.exitCode}: ${stderr}`);
        return stdout
          .split('\n')
          .flatMap((line) => {
            try {
              return [JSON.parse(line) as Record<string, unknown>];
            } catch {
              return [];
            }
          })
          .find((entry) => entry.msg === 'listening');
      },
      { timeoutMs: 60_000 },
    );
  const kill = (): void => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // The whole group is gone already.
    }
  };
  return { child, exited, listening, kill, stderr: () => stderr };
}

async function readyBaseUrl(listening: Record<string, unknown>): Promise<string> {
  const baseUrl = `http://127.0.0.1:${String(listening.port)}`;
  await pollUntil('/readyz 200', async () => ((await request(baseUrl, 'GET', '/readyz')).status === 200 ? true : undefined), { timeoutMs: 60_000 });
  return baseUrl;
}

describe('npm run start:prod: the compiled entry, without tsx', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase('start_prod');
  });
  after(() => db?.drop());

  test('against a configured server: ready, serves the API, and drains on SIGTERM', async (t) => {
    const service = npmStartProd(dbEnv(db.config));
    t.after(service.kill);
    const listening = await service.listening();
    assert.equal(listening.database, db.config.database);
    const baseUrl = await readyBaseUrl(listening);
    assert.deepEqual((await request(baseUrl, 'GET', '/')).json, { name: 'User Service', docs: '/apidocs', openapi: '/openapi.json' });
    assert.equal((await request(baseUrl, 'POST', '/api/users', { json: { name: 'Prod', email: 'prod@example.com' } })).status, 201);
    assert.equal((await request(baseUrl, 'GET', '/api/users?pwd=prod-secret')).status, 200);
    assert.equal((await request(baseUrl, 'GET', '/apidocs/swagger-ui.css')).status, 200, 'Swagger UI is served from the installed swagger-ui-dist');
    service.child.kill('SIGTERM');
    assert.equal(await service.exited, 0, service.stderr());
  });

  test('with OTEL_EXPORTER_OTLP_ENDPOINT: the compiled exporter thread sends a request\'s span', async (t) => {
    const collector = await OtlpReceiver.start();
    t.after(() => collector.close());
    const service = npmStartProd({ ...dbEnv(db.config), OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '100' });
    t.after(service.kill);
    const baseUrl = await readyBaseUrl(await service.listening());
    const res = await request(baseUrl, 'GET', '/api/users/1', { headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } });
    assert.equal(res.status, 200);
    const spanId = res.headers.get('traceparent')!.split('-')[2];
    await pollUntil('the span at the collector', () => collector.spans().find((span) => span.spanId === spanId), { timeoutMs: 30_000 });
    service.child.kill('SIGTERM');
    assert.equal(await service.exited, 0, service.stderr());
  });

  test('with DB_HOST=embedded: the compiled entry starts its own database in ./data/mysql and stops it on SIGTERM', { skip: privateMariaDbSkipReason }, async (t) => {
    const service = npmStartProd({ DB_HOST: 'embedded' });
    t.after(service.kill);
    const listening = await service.listening();
    assert.equal(listening.db, 'embedded: ./data/mysql');
    const baseUrl = await readyBaseUrl(listening);
    assert.equal((await request(baseUrl, 'GET', '/api/users/1')).status, 200);
    service.child.kill('SIGTERM');
    assert.equal(await service.exited, 0, service.stderr());
    assert.deepEqual(serversOn(join(workDir, 'data', 'mysql')), [], 'no database process outlives the service');
  });

  test('without a build: one line saying to run npm run build first, exit 1', async () => {
    // The script itself, in a folder without dist/.
    const bare = spawnSync('sh', ['-c', packageJson.scripts['start:prod']!], { cwd: projectFile('test'), encoding: 'utf8' });
    assert.equal(bare.status, 1);
    assert.equal(bare.stderr, 'dist/src/commands/start.js is missing: run npm run build first\n');
  });
});

