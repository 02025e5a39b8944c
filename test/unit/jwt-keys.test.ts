import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { loadPublicKeys } from '../../src/auth/jwt-keys.js';
import { ConfigError } from '../../src/config/environment.js';
import { pemFolder, pemOf, signingKey } from '../helpers/jwt.js';

const write = pemFolder(after);

const spki = ({ publicKey }: { publicKey: KeyObject }): string => publicKey.export({ type: 'spki', format: 'pem' }) as string;

/** The refusal is a ConfigError of one line naming the setting, and says what is wrong. */
function refusedAtStart(file: string, reason: RegExp): void {
  assert.throws(
    () => loadPublicKeys(file),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `a ConfigError, got ${String(error)}`);
      assert.match(error.message, /^JWT_PUBLIC_KEY_FILE /);
      assert.doesNotMatch(error.message, /\n/, 'one line');
      assert.match(error.message, reason);
      return true;
    },
  );
}

describe('loadPublicKeys: each PEM block becomes a key typed by node:crypto', () => {
  test('RSA -> RS256 and PS256, EC P-256 -> ES256, Ed25519 -> EdDSA, in file order', async () => {
    const pems = await Promise.all((['RS256', 'ES256', 'EdDSA'] as const).map(async (alg) => pemOf(await signingKey(alg))));
    const keys = loadPublicKeys(write('three.pem', `# the provider's keys\n${pems.join('\n')}`));
    assert.deepEqual(
      keys.map((key) => key.algorithms),
      [['RS256', 'PS256'], ['ES256'], ['EdDSA', 'Ed25519']],
    );
    assert.ok(keys.every((key) => key.key.type === 'public'));
  });
});

describe('loadPublicKeys: a file that cannot be used stops the start with one line naming JWT_PUBLIC_KEY_FILE', () => {
  const rows: { rule: string; pem: () => string; reason: RegExp }[] = [
    { rule: 'no PEM block at all', pem: () => 'not a key\n', reason: /holds no -----BEGIN PUBLIC KEY----- block/ },
    {
      rule: 'a block that does not parse',
      pem: () => '-----BEGIN PUBLIC KEY-----\nbm90IGEga2V5\n-----END PUBLIC KEY-----\n',
      reason: /key 1 of 1 does not parse/,
    },
    {
      rule: 'a private key, which would otherwise quietly serve as its public key',
      pem: () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      reason: /a PRIVATE KEY block, where a PUBLIC KEY block was expected/,
    },
    { rule: 'an EC key on a curve other than P-256', pem: () => spki(generateKeyPairSync('ec', { namedCurve: 'P-384' })), reason: /curve secp384r1, where only P-256/ },
    { rule: 'an RSA key shorter than 2048 bits', pem: () => spki(generateKeyPairSync('rsa', { modulusLength: 1024 })), reason: /1024 bits, where at least 2048/ },
    { rule: 'an X25519 (encryption) key', pem: () => spki(generateKeyPairSync('x25519')), reason: /a key of type x25519/ },
    { rule: 'an Ed448 key', pem: () => spki(generateKeyPairSync('ed448')), reason: /a key of type ed448/ },
  ];
  for (const { rule, pem, reason } of rows) {
    test(rule, () => refusedAtStart(write(`${rule}.pem`, pem()), reason));
  }

  test('a second block that is unusable is named by its position', async () => {
    const good = await pemOf(await signingKey('ES256'));
    refusedAtStart(write('second.pem', good + spki(generateKeyPairSync('rsa', { modulusLength: 1024 }))), /key 2 of 2/);
  });

  test('a file that cannot be read', () => refusedAtStart('/nonexistent/keys.pem', /cannot be read: ENOENT/));
});
