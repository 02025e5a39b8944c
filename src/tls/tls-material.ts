import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { TlsSettings } from '../config/tls-settings.js';
import { unreadable } from '../config/unreadable.js';

/** The PEM files of TLS_*, read and checked: what a secure context is made of. */
export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
  ca?: Buffer;
  /** The served certificate's subject and expiry, for the log. */
  subject: string;
  validTo: string;
}

/** Why a TLS file cannot be used; the message starts with the variable that names it. */
export class TlsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TlsFileError';
  }
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Reads the files now, at start: a file that cannot be used stops the start with one line naming its variable. */
export function readTlsMaterial(settings: TlsSettings, now = Date.now()): TlsMaterial {
  const read = (name: string, path: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new TlsFileError(`${name} (${path}) cannot be read (${unreadable(error)})`);
    }
  };
  return checked(settings, read('TLS_CERT_FILE', settings.certFile), read('TLS_KEY_FILE', settings.keyFile), settings.clientCaFile === undefined ? undefined : read('TLS_CLIENT_CA_FILE', settings.clientCaFile), now);
}

/** The same, without blocking: a reload while serving. */
export async function loadTlsMaterial(settings: TlsSettings, now = Date.now()): Promise<TlsMaterial> {
  const read = async (name: string, path: string): Promise<Buffer> => {
    try {
      return await readFile(path);
    } catch (error) {
      throw new TlsFileError(`${name} (${path}) cannot be read (${unreadable(error)})`);
    }
  };
  const [cert, key, ca] = await Promise.all([
    read('TLS_CERT_FILE', settings.certFile),
    read('TLS_KEY_FILE', settings.keyFile),
    settings.clientCaFile === undefined ? undefined : read('TLS_CLIENT_CA_FILE', settings.clientCaFile),
  ]);
  return checked(settings, cert, key, ca, now);
}

function checked(settings: TlsSettings, cert: Buffer, key: Buffer, ca: Buffer | undefined, now: number): TlsMaterial {
  const served = certificates(cert, `TLS_CERT_FILE (${settings.certFile})`)[0]!;
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch (error) {
    const encrypted = /passphrase|encrypted/i.test((error as Error).message) || key.includes('ENCRYPTED');
    throw new TlsFileError(`TLS_KEY_FILE (${settings.keyFile}) ${encrypted ? 'is encrypted: give the key without a passphrase' : 'holds no PEM private key'}`);
  }
  if (!served.checkPrivateKey(privateKey)) {
    throw new TlsFileError(`TLS_KEY_FILE (${settings.keyFile}) is not the key of the certificate in TLS_CERT_FILE (${settings.certFile})`);
  }
  if (Date.parse(served.validTo) <= now) {
    throw new TlsFileError(`TLS_CERT_FILE (${settings.certFile}) holds a certificate that expired on ${new Date(served.validTo).toISOString()}`);
  }
  if (ca !== undefined) certificates(ca, `TLS_CLIENT_CA_FILE (${settings.clientCaFile})`);
  return { cert, key, ...(ca === undefined ? {} : { ca }), subject: served.subject.replaceAll('\n', ', '), validTo: new Date(served.validTo).toISOString() };
}

/** Every certificate of a PEM file, parsed; at least one. */
function certificates(pem: Buffer, named: string): X509Certificate[] {
  const blocks = pem.toString('latin1').match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new TlsFileError(`${named} holds no PEM certificate`);
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new TlsFileError(`${named}: certificate ${i + 1} cannot be parsed`);
    }
  });
}
