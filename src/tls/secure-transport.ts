import { unwatchFile, watchFile } from 'node:fs';
import type { Server as HttpsServer, ServerOptions as HttpsOptions } from 'node:https';
import type { TlsSettings } from '../config/tls-settings.js';
import type { Logger } from '../log/logger.js';
import { loadTlsMaterial, readTlsMaterial, type TlsMaterial } from './tls-material.js';

/** How often the certificate files are looked at for a change (a renewal, a mounted secret replaced). */
export const WATCH_INTERVAL_MS = 1000;
/** A renewal writes the certificate and the key one after the other: read once both are written. */
const SETTLE_MS = 300;

/** HTTPS for the API port: the server's TLS options, and the reload of its certificates once it exists. */
export interface SecureTransport {
  /** TLS 1.2 at least, Node's default ciphers; client certificates required with TLS_CLIENT_CA_FILE. */
  readonly serverOptions: HttpsOptions;
  /** Reloads the files when they change and on SIGHUP, swapping them in without dropping a connection. */
  attach(server: HttpsServer): void;
  /** Reads and swaps the files now; resolves whether they were taken. */
  reload(why: string): Promise<boolean>;
  stop(): void;
}

export function secureTransport(settings: TlsSettings, logger: Logger): SecureTransport {
  const material = readTlsMaterial(settings);
  const mutual = settings.clientCaFile !== undefined;
  const files = [settings.certFile, settings.keyFile, ...(mutual ? [settings.clientCaFile!] : [])];
  let server: HttpsServer | undefined;
  let reloading: Promise<boolean> | undefined;
  let current = material;

  const reload = (why: string): Promise<boolean> =>
    (reloading ??= loadTlsMaterial(settings)
      .then((next) => {
        server?.setSecureContext(contextOptions(next));
        current = next;
        logger.info('TLS certificates reloaded', { why, subject: next.subject, validTo: next.validTo });
        return true;
      })
      .catch((error: unknown) => {
        logger.warn(`TLS reload failed, the certificates in use are kept: ${(error as Error).message}`, { why, subject: current.subject, validTo: current.validTo });
        return false;
      })
      .finally(() => {
        reloading = undefined;
      }));

  let settling: NodeJS.Timeout | undefined;
  const onChange = (): void => {
    clearTimeout(settling);
    settling = setTimeout(() => void reload('file changed'), SETTLE_MS).unref();
  };
  const onHangup = (): void => {
    void reload('SIGHUP');
  };
  return {
    serverOptions: {
      ...contextOptions(material),
      minVersion: 'TLSv1.2',
      requestCert: mutual,
      rejectUnauthorized: mutual,
      ...(settings.ticketKeys ? { ticketKeys: settings.ticketKeys } : {}),
    },
    attach(attached) {
      server = attached;
      for (const file of files) watchFile(file, { interval: WATCH_INTERVAL_MS, persistent: false }, onChange);
      process.on('SIGHUP', onHangup);
    },
    reload,
    stop() {
      clearTimeout(settling);
      for (const file of files) unwatchFile(file, onChange);
      process.off('SIGHUP', onHangup);
    },
  };
}

function contextOptions(material: TlsMaterial): HttpsOptions {
  return { cert: material.cert, key: material.key, ...(material.ca ? { ca: material.ca } : {}) };
}
