import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { ServerOptions as SecureOptions } from 'node:https';
import { createSecureHttpServer, markBusy, type SecureHttpServer } from './h2-server.js';
import type { AddressInfo, Socket } from 'node:net';
import { HttpError } from '../errors/http-error.js';
import { messages } from '../errors/messages.js';
import { type Logger, redactTarget } from '../log/logger.js';
import { sendError } from './answer-error.js';
import { authenticatedAs } from './authenticated-as.js';
import { answerClientError, writeErrorToSocket } from './client-errors.js';
import type { Handler, RequestContext } from './context.js';
import { ALL_API_METHODS, sendPreflight } from './cors.js';
import { assignRequestId, requestIdFor, requestIdOf } from './request-id.js';
import { assignTrace } from './response-trace.js';
import { countRequest } from '../load/request-count.js';
import { continueTrace, type SpanContext } from '../tracing/trace-context.js';
import type { Match, Router } from './router.js';
import { serviceResponse } from './service-response.js';

export interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxHeaderBytes: number;
  timeoutCheckIntervalMs: number;
}

/** Limits on what a client may make the server wait for or hold; documented in the README. */
export const serverLimits: Readonly<ServerLimits> = {
  /** Whole header block must arrive within this time (slow-loris protection). */
  headersTimeoutMs: 10_000,
  /** Whole request, body included, must arrive within this time. */
  requestTimeoutMs: 30_000,
  /** Idle keep-alive connections are kept this long: above the 60 s idle timeout common in load balancers. */
  keepAliveTimeoutMs: 65_000,
  maxHeaderBytes: 16 * 1024,
  /** How often Node checks connections against the two timeouts above. */
  timeoutCheckIntervalMs: 1_000,
};

export interface HttpServerOptions {
  router: Router<Handler>;
  logger: Logger;
  /** Defaults to serverLimits; tests shorten the timeouts. */
  limits?: Readonly<ServerLimits>;
  /** Told of every finished or aborted response; `route` is the matched template, never the raw path. */
  observe?: ResponseObserver;
  /** Runs before every API request (`/api` and below, preflights aside) is routed, and may refuse it by throwing: RATE_LIMIT. */
  admit?: Admission;
  /** The client's address for the access line (as TRUST_PROXY says); the connection's by default. */
  clientAddress?: (req: IncomingMessage) => string;
  /** This service's span for a request (continuing its `traceparent`); not sampled unless the caller's was, by default. */
  startSpan?: (req: IncomingMessage) => SpanContext;
  /** HTTPS (HTTP/2 and HTTP/1.1) with these TLS options (certificates, client certificates, ticket keys); plain HTTP without. */
  secure?: SecureOptions;
  /** Told of every finished or aborted request's span, with its wall-clock start (ms) and duration: the trace exporter. */
  endSpan?: SpanObserver;
}

export type SpanObserver = (span: SpanContext, req: IncomingMessage, res: ServerResponse, route: string, status: number | 'aborted', startedAtMs: number, elapsedMs: number) => void;

const traceOfRequest = (req: IncomingMessage): SpanContext => continueTrace(req.headers.traceparent, req.headers.tracestate);

/** Decides whether a request goes on: returns (or resolves) to let it, throws (or rejects) its refusal. */
export type Admission = (req: IncomingMessage, res: ServerResponse, client: string) => void | Promise<void>;

export type ResponseObserver = (method: string, route: string, status: number | 'aborted', seconds: number) => void;

/** The route label of a request no route matched: raw paths would make one series per URL. */
const UNMATCHED_ROUTE = 'unmatched';

export interface HttpService {
  server: Server;
  /** From now on every response asks the client to close its connection (HTTP/2: the session is told to go away). */
  startDraining(): void;
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, closes idle connections, and closes the rest once their requests end or `drainMs` passes. */
  close(drainMs: number): Promise<void>;
}

const notFound = new HttpError(404, messages.notFound);
const hostRequired = new HttpError(400, messages.hostRequired, { Connection: 'close' });
const expectationFailed = new HttpError(417, messages.expectationFailed);
const methodNotAllowed = new HttpError(405, messages.methodNotAllowed);

const connectionAddress = (req: IncomingMessage): string => req.socket.remoteAddress ?? '';

export function createHttpServer({
  router,
  logger,
  limits = serverLimits,
  observe,
  admit,
  clientAddress = connectionAddress,
  startSpan = traceOfRequest,
  endSpan,
  secure,
}: HttpServerOptions): HttpService {
  let draining = false;

  const fail = (req: IncomingMessage, res: ServerResponse, path: string, error: unknown): void =>
    sendError(res, error, logger, { method: req.method, path, requestId: requestIdOf(res) });

  /** Runs the matched route; throws the refusal of a path or method the router does not serve. */
  const dispatch = (req: IncomingMessage, res: ServerResponse, match: Match<Handler>, path: string, query: string, requestId: string, client: string, trace: SpanContext): void => {
    if (match.kind === 'not-found') throw notFound;
    if (match.kind === 'method-not-allowed') throw new HttpError(405, messages.methodNotAllowed, { Allow: match.allow });
    const ctx: RequestContext = { req, res, path, query, params: match.params, requestId, client, trace };
    const pending = match.handler(ctx);
    if (pending) pending.catch((error: unknown) => fail(req, res, path, error));
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    countRequest();
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const path = mark === -1 ? url : url.slice(0, mark);
    const query = mark === -1 ? '' : url.slice(mark + 1);
    const requestId = requestIdFor(req.headers['x-request-id']);
    assignRequestId(res, requestId);
    const span = startSpan(req);
    assignTrace(res, span);
    // Read once, now: the access line, the rate limit and the guessing limit name the same client, and
    // once an aborted request's socket is gone, its address is too.
    const client = clientAddress(req);
    let route = UNMATCHED_ROUTE;
    // A response closes once: `on` spares the wrapper and the removal `once` would cost every request.
    res.on('close', () => {
      const status = res.writableFinished ? res.statusCode : 'aborted';
      const elapsedMs = performance.now() - started;
      const durationMs = Math.round(elapsedMs * 10) / 10;
      logger.request(req.method ?? '', redactTarget(path, query), status, durationMs, requestId, client, req.headers['user-agent'], authenticatedAs(res), span);
      observe?.(req.method ?? '', route, status, elapsedMs / 1000);
      if (endSpan !== undefined && span.sampled) endSpan(span, req, res, route, status, performance.timeOrigin + started, elapsedMs);
    });
    try {
      // Node's own answer to this is a bare 400, so its check is off and this one answers in JSON.
      if (req.headers.host === undefined && req.httpVersion === '1.1') throw hostRequired;
      const method = req.method ?? 'GET';
      if (method === 'OPTIONS') {
        const known = router.lookup(path);
        if (known) route = known.route;
        // Any API path allows every API method, so a browser sends the real request and the page reads its 405 JSON.
        const api = isApiPath(path);
        const allow = known?.allow ?? (api ? ALL_API_METHODS : undefined);
        if (!allow) throw notFound;
        return sendPreflight(req, res, api ? ALL_API_METHODS : allow, allow);
      }
      const match = router.match(method, path);
      if (match.kind !== 'not-found') route = match.route;
      if (admit !== undefined && isApiPath(path)) {
        const admitting = admit(req, res, client);
        if (admitting !== undefined) {
          admitting.then(() => dispatch(req, res, match, path, query, requestId, client, span)).catch((error: unknown) => fail(req, res, path, error));
          return;
        }
      }
      dispatch(req, res, match, path, query, requestId, client, span);
    } catch (error) {
      fail(req, res, path, error);
    }
  };

  const httpOptions = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    maxHeaderSize: limits.maxHeaderBytes,
    connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
    requireHostHeader: false,
    ServerResponse: serviceResponse(() => draining),
  };
  let tls: SecureHttpServer | undefined;
  let server: Server;
  let handle = onRequest;
  if (secure) {
    handle = (req, res) => {
      markBusy(req, res);
      onRequest(req, res);
    };
    tls = createSecureHttpServer(secure, httpOptions, handle);
    server = tls.server;
  } else server = createServer(httpOptions, onRequest);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => answerClientError(error, socket));
  // Without these listeners Node drops a CONNECT without a word and answers an unknown Expect with a bare 417.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => writeErrorToSocket(socket, methodNotAllowed));
  // Without this listener Node answers every `Expect: 100-continue` with 100 Continue before the
  // request is routed; the body reader sends it once the body is wanted and within the limit (body.ts).
  server.on('checkContinue', handle);
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => fail(req, res, req.url ?? '/', expectationFailed));
  const startDraining = (): void => {
    draining = true;
    tls?.drainSessions();
  };
  const listen = (port: number, host: string): Promise<AddressInfo> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve(server.address() as AddressInfo);
      });
    });
  const close = async (drainMs: number): Promise<void> => {
    const force = setTimeout(() => (tls ? tls.closeAll() : server.closeAllConnections()), drainMs);
    await new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      if (tls) tls.closeIdle();
      else server.closeIdleConnections();
    });
    clearTimeout(force);
  };
  return { server, startDraining, listen, close };
}

function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}
