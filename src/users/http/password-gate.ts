import { HttpError } from '../../errors/http-error.js';
import { messages } from '../../errors/messages.js';
import type { Handler } from '../../http/context.js';
import type { GuessingGuard } from '../../limits/failed-attempts.js';
import { singlePassword } from './password.js';

/** Puts a handler behind the `pwd` query parameter (the list's protection, 5.2 of the contract). */
export type PasswordGate = (handler: Handler) => Handler;

/**
 * The `pwd` check with its guessing limit: a blocked address is refused 429 before its password
 * is compared; a wrong or missing password is `wrongPassword` (the active API_COMPAT mode's
 * refusal), or 429 once it reaches the limit. Every route behind one gate counts against the same
 * limit, whichever of them an address guesses on.
 */
export function passwordGate(passwordMatches: (candidate: string | undefined) => boolean, attempts: GuessingGuard, wrongPassword: HttpError): PasswordGate {
  return (handler) => async (ctx) => {
    const { query, client: address } = ctx;
    // A blocked address learns nothing: its password is not even compared.
    const waitMs = attempts.blockedForMs(address);
    if (waitMs > 0) throw tooManyFailures(waitMs);
    if (!passwordMatches(singlePassword(query))) {
      // The verdict may come from the primary of several workers: the failure past the limit is 429 wherever it landed.
      const failed = attempts.failed(address);
      const failedWaitMs = typeof failed === 'number' ? failed : await failed;
      throw failedWaitMs > 0 ? tooManyFailures(failedWaitMs) : wrongPassword;
    }
    const passed = attempts.succeeded(address);
    const passedWaitMs = typeof passed === 'number' ? passed : await passed;
    if (passedWaitMs > 0) throw tooManyFailures(passedWaitMs);
    await handler(ctx);
  };
}

function tooManyFailures(waitMs: number): HttpError {
  return new HttpError(429, messages.tooManyFailures, { 'Retry-After': String(Math.ceil(waitMs / 1000)) });
}
