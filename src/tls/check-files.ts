import { ConfigError } from '../config/env-values.js';
import type { TlsSettings } from '../config/tls-settings.js';
import { readTlsMaterial, TlsFileError } from './tls-material.js';

/**
 * TLS_*'s files read and checked before anything starts (missing, unreadable, not PEM, a key that
 * is not the certificate's, an expired certificate): one line naming the variable, as any invalid
 * setting gives.
 */
export function checkTlsFiles(settings: TlsSettings | undefined): void {
  if (settings === undefined) return;
  try {
    readTlsMaterial(settings);
  } catch (error) {
    if (!(error instanceof TlsFileError)) throw error;
    throw new ConfigError(error.message);
  }
}
