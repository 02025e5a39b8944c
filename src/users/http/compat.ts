import type { ServerResponse } from 'node:http';
import type { ApiCompat } from '../../config/environment.js';
import { messages } from '../../errors/http-error.js';
import { errorBody, messageBody, sendJson, sendText } from '../../http/respond.js';

/** One fixed answer, its body serialised once. */
export type Answer = (res: ServerResponse) => void;

/** The answers that differ between the contract and the older implementations (spec section 7.2). */
export interface CompatAnswers {
  wrongPassword: Answer;
  readMissing: Answer;
  deleteMissing: Answer;
}

const json =
  (status: number, body: string): Answer =>
  (res) =>
    sendJson(res, status, body);

/** The contract's 404 for an id no user has. */
export const userNotFound = json(404, errorBody(messages.userNotFound));
const userNotFoundMessage = json(404, messageBody(messages.userNotFound));

export const compatAnswers: Readonly<Record<ApiCompat, CompatAnswers>> = {
  contract: {
    wrongPassword: json(401, errorBody(messages.invalidPassword)),
    readMissing: userNotFound,
    deleteMissing: userNotFound,
  },
  earlier: {
    wrongPassword: (res) => sendText(res, 200, messages.wrongPasswordMate),
    readMissing: json(500, messageBody(messages.userNotFound)),
    deleteMissing: userNotFoundMessage,
  },
  fastapi: {
    wrongPassword: json(403, messageBody(messages.wrongPasswordMate)),
    readMissing: userNotFoundMessage,
    deleteMissing: userNotFoundMessage,
  },
};
