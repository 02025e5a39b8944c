import type { ServerResponse } from 'node:http';

/** A response that knows whom its request was authenticated as, for the access line. */
interface AttributedResponse extends ServerResponse {
  authenticatedAs?: string;
}

/** Set by whoever authenticated the request (a bearer token's principal, `key:ci`); never a credential. */
export function setAuthenticatedAs(res: ServerResponse, name: string): void {
  (res as AttributedResponse).authenticatedAs = name;
}

/** Whom the request was authenticated as; undefined when it was not (no token, or AUTH=off). */
export function authenticatedAs(res: ServerResponse): string | undefined {
  return (res as AttributedResponse).authenticatedAs;
}
