import { STATUS_CODES, ServerResponse, createServer, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { type Logger, redactTarget } from '../log/logger.js';
import { ClientGoneError } from './body.js';
import type { Handler, RequestContext } from './context.js';
import { ALL_API_METHODS, sendPreflight } from './cors.js';
import { causeOf, StorageError } from '../errors/storage-error.js';
import { HttpError, messages } from '../errors/http-error.js';
import { assignRequestId, freshRequestId, REQUEST_ID_HEADER, requestIdFor, requestIdOf } from './request-id.js';
import { errorBody, jsonHeaderLines, sendJson } from './respond.js';
import type { Router } from './router.js';

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
}

export type ResponseObserver = (method: string, route: string, status: number | 'aborted', seconds: number) => void;

/** The route label of a request no route matched: raw paths would make one series per URL. */
const UNMATCHED_ROUTE = 'unmatched';

export interface HttpService {
  server: Server;
  /** From now on every response asks the client to close its connection. */
  startDraining(): void;
}

const notFoundBody = errorBody(messages.notFound);
const methodNotAllowedBody = errorBody(messages.methodNotAllowed);
const hostRequiredBody = errorBody(messages.hostRequired);
const expectationFailedBody = errorBody(messages.expectationFailed);

export function createHttpServer({ router, logger, limits = serverLimits, observe }: HttpServerOptions): HttpService {
  let draining = false;

  const fail = (ctx: RequestContext, error: unknown): void => {
    const { req, res, requestId } = ctx;
    if (error instanceof ClientGoneError) {
      res.destroy();
      return;
    }
    if (res.headersSent) {
      logger.error('response failed after it started', error, { method: req.method, path: ctx.path, requestId });
      res.destroy();
      return;
    }
    if (error instanceof HttpError) {
      sendJson(res, error.status, errorBody(error.message), error.headers);
    } else if (error instanceof StorageError && error.kind === 'busy') {
      logger.warn('database queue full', { method: req.method, path: ctx.path, requestId });
      sendJson(res, 503, errorBody(messages.busy), { 'Retry-After': '1' });
    } else {
      logger.error('request failed', causeOf(error), {
        method: req.method,
        path: ctx.path,
        requestId,
      });
      sendJson(res, 500, errorBody(error instanceof StorageError ? messages.storage : messages.internal));
    }
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const path = mark === -1 ? url : url.slice(0, mark);
    const query = mark === -1 ? '' : url.slice(mark + 1);
    const requestId = requestIdFor(req.headers['x-request-id']);
    assignRequestId(res, requestId);
    let route = UNMATCHED_ROUTE;
    // A response closes once: `on` spares the wrapper and the removal `once` would cost every request.
    res.on('close', () => {
      const status = res.writableFinished ? res.statusCode : 'aborted';
      const elapsedMs = performance.now() - started;
      logger.request(req.method ?? '', redactTarget(path, query), status, Math.round(elapsedMs * 10) / 10, requestId);
      observe?.(req.method ?? '', route, status, elapsedMs / 1000);
    });
    // Node's own answer to this is a bare 400, so its check is off and this one answers in JSON.
    if (req.headers.host === undefined && req.httpVersion === '1.1') {
      return sendJson(res, 400, hostRequiredBody, { Connection: 'close' });
    }

    const method = req.method ?? 'GET';
    if (method === 'OPTIONS') {
      const known = router.lookup(path);
      if (known) route = known.route;
      // Any API path allows every API method, so a browser sends the real request and the page reads its 405 JSON.
      const api = isApiPath(path);
      const allow = known?.allow ?? (api ? ALL_API_METHODS : undefined);
      if (allow) sendPreflight(req, res, api ? ALL_API_METHODS : allow, allow);
      else sendJson(res, 404, notFoundBody);
      return;
    }
    const match = router.match(method, path);
    if (match.kind === 'not-found') return sendJson(res, 404, notFoundBody);
    route = match.route;
    if (match.kind === 'method-not-allowed') return sendJson(res, 405, methodNotAllowedBody, { Allow: match.allow });

    const ctx: RequestContext = { req, res, path, query, params: match.params, requestId };
    try {
      const pending = match.handler(ctx);
      if (pending) pending.catch((error: unknown) => fail(ctx, error));
    } catch (error) {
      fail(ctx, error);
    }
  };

  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
      requireHostHeader: false,
      ServerResponse: serviceResponse(() => draining),
    },
    onRequest,
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => answerClientError(error, socket));
  // Without these listeners Node drops a CONNECT without a word and answers an unknown Expect with a bare 417.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => writeJsonToSocket(socket, 405, messages.methodNotAllowed));
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => sendJson(res, 417, expectationFailedBody));
  const startDraining = (): void => {
    draining = true;
  };
  return { server, startDraining };
}

/**
 * Responses that carry `X-Request-Id` whichever path writes their head, and ask the client to
 * close the connection once `closing()` is true, decided as the head is written: requests already
 * running when draining starts are covered too, so a keep-alive client cannot hold shutdown up to
 * the drain limit. No registry of running requests is kept (one Set entry per request kept every
 * response alive long enough to reach V8's old generation, which made each young-generation
 * collection several times slower).
 */
function serviceResponse(closing: () => boolean): typeof ServerResponse<IncomingMessage> {
  return class ServiceResponse extends ServerResponse {
    /** Declared here so every response has the same shape from the start (see request-id.ts). */
    requestId?: string;

    override writeHead(
      statusCode: number,
      reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
      headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
    ): this {
      if (closing()) this.setHeader('Connection', 'close');
      const reason = typeof reasonOrHeaders === 'string' ? reasonOrHeaders : undefined;
      const given = reason === undefined ? reasonOrHeaders : headers;
      // Flat header arrays stay flat (setHeader would switch Node to its slower path); those of
      // respond.ts already end with the id.
      if (Array.isArray(given)) {
        const named = given[given.length - 2] === REQUEST_ID_HEADER;
        return super.writeHead(statusCode, reason, named ? given : given.concat(REQUEST_ID_HEADER, requestIdOf(this)));
      }
      this.setHeader(REQUEST_ID_HEADER, requestIdOf(this));
      return super.writeHead(statusCode, reason, given as OutgoingHttpHeaders | undefined);
    }
  };
}

function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

const clientErrorStatus: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADERS_TIMEOUT: 408,
};

const clientErrorMessage: Record<number, string> = {
  400: messages.malformedRequest,
  408: messages.requestTimeout,
  431: messages.headersTooLarge,
};

/** A request Node could not parse or that took too long: a JSON answer written straight to the socket. */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = clientErrorStatus[error.code ?? ''] ?? 400;
  writeJsonToSocket(socket, status, clientErrorMessage[status]!);
}

/** A complete JSON error response written straight to a socket no ServerResponse owns; then the socket closes. */
function writeJsonToSocket(socket: Socket, status: number, message: string): void {
  const body = errorBody(message);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      jsonHeaderLines +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `${REQUEST_ID_HEADER}: ${freshRequestId()}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
