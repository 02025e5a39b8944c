import { ConfigError, text, type Env } from './env-values.js';

/** TLS_*: HTTPS on PORT from PEM files, with client certificates required when a CA is given. */
export interface TlsSettings {
  certFile: string;
  keyFile: string;
  /** TLS_CLIENT_CA_FILE: mutual TLS, every client presenting a certificate signed by this CA. */
  clientCaFile?: string;
  /** TLS_TICKET_KEYS: 48 bytes (96 hex digits) that encrypt session tickets, shared so another process can resume a session. */
  ticketKeys?: Buffer;
}

const TICKET_KEYS = /^[0-9a-fA-F]{96}$/;

/** Both TLS_CERT_FILE and TLS_KEY_FILE, or neither (plain HTTP); the files themselves are read by tls-material.ts. */
export function tlsSettings(env: Env): TlsSettings | undefined {
  const certFile = text(env, 'TLS_CERT_FILE', '');
  const keyFile = text(env, 'TLS_KEY_FILE', '');
  const clientCaFile = text(env, 'TLS_CLIENT_CA_FILE', '');
  const ticketKeys = text(env, 'TLS_TICKET_KEYS', '');
  if (certFile === '' && keyFile === '') {
    if (clientCaFile !== '') throw new ConfigError('TLS_CLIENT_CA_FILE needs TLS_CERT_FILE and TLS_KEY_FILE: client certificates are asked for only over HTTPS');
    if (ticketKeys !== '') throw new ConfigError('TLS_TICKET_KEYS needs TLS_CERT_FILE and TLS_KEY_FILE: session tickets exist only over HTTPS');
    return undefined;
  }
  if (certFile === '') throw new ConfigError('TLS_CERT_FILE must be set with TLS_KEY_FILE: the certificate (PEM, its chain after it) to serve HTTPS with');
  if (keyFile === '') throw new ConfigError('TLS_KEY_FILE must be set with TLS_CERT_FILE: the private key (PEM) of the certificate');
  if (ticketKeys !== '' && !TICKET_KEYS.test(ticketKeys)) throw new ConfigError('TLS_TICKET_KEYS must be 96 hex digits (48 random bytes: openssl rand -hex 48)');
  return {
    certFile,
    keyFile,
    ...(clientCaFile === '' ? {} : { clientCaFile }),
    ...(ticketKeys === '' ? {} : { ticketKeys: Buffer.from(ticketKeys, 'hex') }),
  };
}
