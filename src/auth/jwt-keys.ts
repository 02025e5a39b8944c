import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/environment.js';

/** A public key from JWT_PUBLIC_KEY_FILE and the algorithms a token signed by it may name. */
export interface PublicKey {
  readonly key: KeyObject;
  readonly algorithms: readonly AsymmetricAlgorithm[];
}

/** The asymmetric algorithms accepted, from the PEM file or the JWKS; nothing else is. */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA', 'Ed25519'] as const;
export type AsymmetricAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number];

/** Shorter RSA keys are refused by jose at verification; refusing them at start-up says so once. */
const MIN_RSA_BITS = 2048;

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/**
 * The public keys of a PEM file holding one or more `-----BEGIN PUBLIC KEY-----` blocks, each typed by
 * node:crypto: RSA -> RS256 and PS256, EC P-256 -> ES256, Ed25519 -> EdDSA (and its newer name Ed25519).
 * A file that cannot be read, holds no such block, or holds a key of another kind is a ConfigError
 * of one line naming the setting.
 */
export function loadPublicKeys(file: string): PublicKey[] {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`JWT_PUBLIC_KEY_FILE "${file}" cannot be read: ${(error as Error).message}`);
  }
  const blocks = [...pem.matchAll(PEM_BLOCK)];
  if (blocks.length === 0) throw new ConfigError(`JWT_PUBLIC_KEY_FILE "${file}" holds no -----BEGIN PUBLIC KEY----- block`);
  return blocks.map(([block, label], index) => {
    const where = `JWT_PUBLIC_KEY_FILE "${file}", key ${index + 1} of ${blocks.length}`;
    // createPublicKey would quietly derive the public key from a private one: a private key in this
    // file is a mistake worth stopping for, not a key to use.
    if (label !== 'PUBLIC KEY') throw new ConfigError(`${where}: a ${label} block, where a PUBLIC KEY block was expected`);
    let key: KeyObject;
    try {
      key = createPublicKey(block);
    } catch (error) {
      throw new ConfigError(`${where} does not parse: ${(error as Error).message}`);
    }
    return { key, algorithms: algorithmsOf(key, where) };
  });
}

function algorithmsOf(key: KeyObject, where: string): readonly AsymmetricAlgorithm[] {
  const details = key.asymmetricKeyDetails;
  switch (key.asymmetricKeyType) {
    case 'rsa':
      if ((details?.modulusLength ?? 0) < MIN_RSA_BITS)
        throw new ConfigError(`${where}: an RSA key of ${details?.modulusLength} bits, where at least ${MIN_RSA_BITS} are needed`);
      return ['RS256', 'PS256'];
    case 'ec':
      if (details?.namedCurve === 'prime256v1') return ['ES256'];
      throw new ConfigError(`${where}: an EC key on curve ${details?.namedCurve}, where only P-256 (ES256) is supported`);
    case 'ed25519':
      return ['EdDSA', 'Ed25519'];
    default:
      throw new ConfigError(`${where}: a key of type ${key.asymmetricKeyType}, where RSA, EC P-256 or Ed25519 is supported`);
  }
}
