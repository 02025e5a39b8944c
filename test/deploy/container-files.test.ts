import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { projectFile } from '../../src/paths.js';

/**
 * Docker cannot run here, so these read Dockerfile and docker-compose.yml as text for the
 * properties a deployment relies on. Not a YAML parser: a service's block is the lines indented
 * under its name.
 */
const dockerfile = readFileSync(projectFile('Dockerfile'), 'utf8');
const compose = readFileSync(projectFile('docker-compose.yml'), 'utf8');

function serviceBlock(name: string): string {
  const lines = compose.split('\n');
  const start = lines.indexOf(`  ${name}:`);
  assert.notEqual(start, -1, `docker-compose.yml has a ${name} service`);
  const end = lines.findIndex((line, i) => i > start && line.trim() !== '' && !line.startsWith('   '));
  return lines.slice(start + 1, end === -1 ? undefined : end).join('\n');
}

const db = serviceBlock('db');
const api = serviceBlock('api');

test('the Dockerfile names no syntax frontend: the builder bundled with Docker reads it', () => {
  assert.doesNotMatch(dockerfile, /^#\s*syntax=/im);
});

test('the runtime image installs production dependencies without peers (no @types/node, undici-types)', () => {
  const installs = dockerfile.split('\n').filter((line) => /^RUN npm ci\b/.test(line));
  assert.equal(installs.length, 2, 'one full install to build, one for the runtime');
  assert.match(installs[1]!, /--omit=dev/);
  assert.match(installs[1]!, /--legacy-peer-deps/);
});

test('the image runs the compiled entry and says how long a stop may take', () => {
  assert.match(dockerfile, /^CMD \["node", "dist\/src\/commands\/start\.js"\]$/m);
  assert.match(dockerfile, /^STOPSIGNAL SIGTERM$/m);
  assert.match(dockerfile, /--stop-timeout 30/);
});

test('compose: the database is MariaDB (an LTS tag), checked by its own healthcheck and restarted unless stopped', () => {
  assert.match(db, /^ {4}image: mariadb:11\.4$/m);
  assert.match(db, /MARIADB_ROOT_PASSWORD: \$\{DB_PASSWORD:\?[^}]+\}/);
  assert.match(db, /MARIADB_DATABASE: restapi/);
  assert.match(db, /test: \["CMD", "healthcheck\.sh", "--connect", "--innodb_initialized"\]/);
  assert.match(db, /^ {4}restart: unless-stopped$/m);
});

test('compose: DB_PASSWORD is required, never a silent default', () => {
  assert.doesNotMatch(compose, /change-me/);
  assert.match(api, /DB_PASSWORD: \$\{DB_PASSWORD:\?[^}]+\}/);
});

test('compose: the API is published on 127.0.0.1 unless PUBLISH_ADDRESS says otherwise', () => {
  assert.match(api, /^ {6}- "\$\{PUBLISH_ADDRESS:-127\.0\.0\.1\}:\$\{PORT:-5000\}:5000"$/m);
});

test('compose: the API gets 30 s to stop (shutdown delay, 10 s drain, margin) before SIGKILL', () => {
  assert.match(api, /^ {4}stop_grace_period: 30s$/m);
});
