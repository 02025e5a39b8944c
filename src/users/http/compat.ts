import type { ApiCompat } from '../../config/environment.js';
import { HttpError } from '../../errors/http-error.js';
import { messages } from '../../errors/messages.js';

/** The refusals that differ between the contract and the older implementations, thrown by the routes. */
export interface CompatErrors {
  wrongPassword: HttpError;
  readMissing: HttpError;
  deleteMissing: HttpError;
}

/** The contract's 404 for an id no user has. */
export const userNotFound = new HttpError(404, messages.userNotFound);
const userNotFoundMessage = new HttpError(404, messages.userNotFound, undefined, 'message');

/** Each API_COMPAT mode's refusals; the README's compatibility table lists them. */
export const compatErrors: Readonly<Record<ApiCompat, CompatErrors>> = {
  contract: {
    wrongPassword: new HttpError(401, messages.invalidPassword),
    readMissing: userNotFound,
    deleteMissing: userNotFound,
  },
  earlier: {
    wrongPassword: new HttpError(200, messages.wrongPasswordMate, undefined, 'text'),
    readMissing: new HttpError(500, messages.userNotFound, undefined, 'message'),
    deleteMissing: userNotFoundMessage,
  },
  fastapi: {
    wrongPassword: new HttpError(403, messages.wrongPasswordMate, undefined, 'message'),
    readMissing: userNotFoundMessage,
    deleteMissing: userNotFoundMessage,
  },
};
