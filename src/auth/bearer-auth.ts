import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../log/logger.js';
import { bearerToken } from './bearer-token.js';
import { authenticationRequired, insufficientScope, invalidToken } from './challenges.js';
import { InvalidTokenError, type Principal, type Scope } from './principal.js';

/**
 * Who a request's bearer token proves the caller to be, or the 401 to answer: `Authentication
 * required` without a token, `Invalid token` for one no verifier accepts. Why a token was refused
 * goes to the log (the token never does); another failure of a verifier (say, its key server is
 * down) is not the client's fault and propagates as it is.
 */
export class BearerAuth {
  /** Each request's token is verified once, whoever asks first: the rate limit, to name its client, or the route. */
  private readonly verified = new WeakMap<IncomingMessage, Promise<Principal>>();

  constructor(
    private readonly verify: (token: string) => Promise<Principal>,
    private readonly logger: Logger,
    /** The principal of a client certificate's common name (API_KEYS_FILE's `cert:` lines), for requests without a token. */
    private readonly certificate?: (commonName: string) => Promise<Principal | undefined>,
  ) {}

  /** authenticate() of the request's Authorization header, remembered for the rest of the request. */
  principalOf(req: IncomingMessage, requestId: string): Promise<Principal> {
    let principal = this.verified.get(req);
    if (principal === undefined) {
      principal = this.authenticate(req.headers.authorization, requestId, peerCommonName(req));
      // Whoever asks handles a refusal; unasked (the rate limit fell back to the address), it is no unhandled rejection.
      principal.catch(() => {});
      this.verified.set(req, principal);
    }
    return principal;
  }

  /** A bearer token decides when one is sent; without one, a verified client certificate named in API_KEYS_FILE. */
  authenticate(authorization: string | undefined, requestId: string, commonName?: string): Promise<Principal> {
    const token = bearerToken(authorization);
    if (token === undefined) {
      if (commonName === undefined || this.certificate === undefined) return Promise.reject(authenticationRequired);
      return this.certificate(commonName).then((principal) => principal ?? Promise.reject(authenticationRequired));
    }
    return this.verify(token).catch((error: unknown) => {
      if (!(error instanceof InvalidTokenError)) throw error;
      // A verifier's reason should never quote the token; should one do so, the log still gets none of it.
      const reason = token.length >= 8 && error.message.includes(token) ? 'refused' : error.message;
      this.logger.info('bearer token refused', { reason, requestId });
      throw invalidToken;
    });
  }
}

/** A principal without `scope` gets 403, its challenge naming the scope needed. */
export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.has(scope)) throw insufficientScope[scope];
}

/** The subject common name of the client's certificate, when the connection is TLS and the certificate was verified against TLS_CLIENT_CA_FILE. */
function peerCommonName(req: IncomingMessage): string | undefined {
  const socket = req.socket as Partial<TLSSocket>;
  if (socket.authorized !== true || socket.getPeerCertificate === undefined) return undefined;
  const commonName = socket.getPeerCertificate().subject?.CN as string | string[] | undefined;
  return typeof commonName === 'string' ? commonName : undefined;
}
