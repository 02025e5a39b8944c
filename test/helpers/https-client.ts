import { request, type Agent } from 'node:https';
import type { PeerCertificate, TLSSocket } from 'node:tls';

export interface SecureAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The certificate the server presented on this connection. */
  peer: PeerCertificate;
  /** The client's local port: the same on two answers means one connection served both. */
  localPort: number | undefined;
}

export interface SecureRequest {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The CA that signed the server's certificate (PEM). */
  ca: Buffer | string;
  /** A client certificate and its key (PEM), for mutual TLS. */
  cert?: Buffer | string;
  key?: Buffer | string;
  agent?: Agent;
}

/** One request over HTTPS with Node's own client, trusting `ca`. */
export function secureRequest(url: string, options: SecureRequest): Promise<SecureAnswer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        ca: options.ca,
        ...(options.cert ? { cert: options.cert, key: options.key } : {}),
        ...(options.agent ? { agent: options.agent } : { agent: false }),
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
      },
      (res) => {
        const socket = res.socket as TLSSocket;
        const peer = socket.getPeerCertificate();
        const localPort = socket.localPort;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), peer, localPort }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
