import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createSecureServer, Http2ServerResponse, type Http2Session, type OutgoingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { ServerOptions as SecureOptions } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { TRACEPARENT_HEADER } from '../tracing/trace-context.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';
import { traceparentHeaderOf } from './response-trace.js';
/** node:http's server options as server.ts sets them: the limits, and the HTTP/1.1 response class. */
export interface Http1Options {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  maxHeaderSize: number;
  connectionsCheckingInterval: number;
  requireHostHeader: boolean;
  ServerResponse: typeof ServerResponse<IncomingMessage>;
}

/** The server of an HTTPS port, and how it drains: HTTP/2 sessions are told to go away (GOAWAY). */
export interface SecureHttpServer {
  server: Server;
  /** Every HTTP/2 session finishes its streams and closes; HTTP/1.1 connections close after their answer. */
  drainSessions(): void;
  /** Connections with nothing in progress are closed now. */
  closeIdle(): void;
  /** Every connection is closed now. */
  closeAll(): void;
}

/**
 * HTTPS offering HTTP/2 (ALPN `h2`) and HTTP/1.1 on one port, both served by `onRequest` through
 * Node's compatibility API. HTTP/1.1 keeps every limit of the plain server; an HTTP/2 session is
 * closed after the keep-alive timeout without a stream, and holds at most 128 streams at once.
 */
export function createSecureHttpServer(
  secure: SecureOptions,
  { ServerResponse: http1Response, ...http1 }: Http1Options,
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
): SecureHttpServer {
  const server = createSecureServer(
    {
      ...(secure as object),
      allowHTTP1: true,
      Http1ServerResponse: http1Response,
      Http2ServerResponse: ServiceH2Response,
      settings: { maxConcurrentStreams: 128, maxHeaderListSize: http1.maxHeaderSize },
      maxSessionMemory: 32,
    },
    onRequest as unknown as Parameters<typeof createSecureServer>[1],
  );
  // The HTTP/1.1 side reads the same limits from the server object as node:http's server does.
  Object.assign(server, http1);
  /** Each HTTP/2 session with the number of its streams still open. */
  const sessions = new Map<Http2Session, number>();
  const sockets = new Set<TLSSocket>();
  server.on('session', (session: Http2Session) => {
    sessions.set(session, 0);
    session.setTimeout(http1.keepAliveTimeout, () => {
      if (sessions.get(session) === 0) session.close();
    });
    session.once('close', () => sessions.delete(session));
  });
  server.on('stream', (stream: ServerHttp2Stream) => {
    const { session } = stream;
    if (session === undefined || !sessions.has(session)) return;
    sessions.set(session, sessions.get(session)! + 1);
    stream.once('close', () => {
      if (sessions.has(session)) sessions.set(session, sessions.get(session)! - 1);
    });
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    server: server as unknown as Server,
    drainSessions() {
      for (const session of sessions.keys()) session.close();
    },
    closeIdle() {
      for (const [session, streams] of sessions) if (streams === 0) session.close();
      for (const socket of sockets) if (socket.alpnProtocol !== 'h2' && !busy.has(socket)) socket.destroy();
    },
    closeAll() {
      for (const session of sessions.keys()) session.destroy();
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** HTTP/1.1 sockets of a secure server with requests in progress, and how many. */
const busy = new WeakMap<object, number>();

/** Marks an HTTP/1.1 request's socket busy until its response closes, so that closeIdle() leaves it be. */
export function markBusy(req: IncomingMessage, res: ServerResponse): void {
  if (req.httpVersionMajor !== 1) return;
  const socket = req.socket;
  busy.set(socket, (busy.get(socket) ?? 0) + 1);
  res.once('close', () => {
    const left = (busy.get(socket) ?? 1) - 1;
    if (left === 0) busy.delete(socket);
    else busy.set(socket, left);
  });
}

/**
 * HTTP/2 responses that carry `X-Request-Id` and `traceparent` as HTTP/1.1 ones do (see
 * service-response.ts). Connection-level headers do not exist in HTTP/2: draining is GOAWAY.
 */
class ServiceH2Response extends Http2ServerResponse {
  override writeHead(statusCode: number, reasonOrHeaders?: string | OutgoingHttpHeaders | readonly string[], headers?: OutgoingHttpHeaders | readonly string[]): this {
    const given = typeof reasonOrHeaders === 'string' ? headers : reasonOrHeaders;
    const res = this as unknown as ServerResponse;
    if (Array.isArray(given)) {
      const named = given[given.length - 2] === TRACEPARENT_HEADER;
      const all = named ? given : given.concat(REQUEST_ID_HEADER, requestIdOf(res), TRACEPARENT_HEADER, traceparentHeaderOf(res));
      return super.writeHead(statusCode, withoutConnection(all) as unknown as OutgoingHttpHeaders);
    }
    this.setHeader(REQUEST_ID_HEADER, requestIdOf(res));
    this.setHeader(TRACEPARENT_HEADER, traceparentHeaderOf(res));
    const object = { ...(given as OutgoingHttpHeaders | undefined) };
    delete object.Connection;
    delete object.connection;
    return super.writeHead(statusCode, object);
  }
}

function withoutConnection(headers: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < headers.length; i += 2) if (headers[i]!.toLowerCase() !== 'connection') kept.push(headers[i]!, headers[i + 1]!);
  return kept;
}
