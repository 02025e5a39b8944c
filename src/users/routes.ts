import type { IncomingMessage } from 'node:http';
import type { FailedAttempts } from '../auth/failed-attempts.js';
import { readJsonObject } from '../http/body.js';
import type { Handler } from '../http/context.js';
import { HttpError, messages } from '../http/errors.js';
import { errorBody, messageBody, sendJson } from '../http/respond.js';
import type { Router } from '../http/router.js';
import type { CompatAnswers } from './compat.js';
import { isIdSegment, storableId } from './id.js';
import { sendUserList } from './list-response.js';
import { singlePassword } from './password.js';
import type { UserStore } from './store.js';
import { userJson } from './user.js';
import { validateUserInput } from './validate.js';

export interface UserRouteDeps {
  store: UserStore;
  passwordMatches: (candidate: string | undefined) => boolean;
  /** Wrong passwords per client address, and who must wait. */
  attempts: FailedAttempts;
  clientAddress: (req: IncomingMessage) => string;
  /** The answers of the active API_COMPAT mode where the variants differ. */
  answers: CompatAnswers;
}

const created = messageBody('User created successfully');
const updated = messageBody('User updated successfully');
const deleted = messageBody('User deleted successfully');
const userNotFound = errorBody(messages.userNotFound);

export function registerUserRoutes(router: Router<Handler>, deps: UserRouteDeps): void {
  const { store, passwordMatches, attempts, clientAddress, answers } = deps;
  const byId = { id: isIdSegment };

  router.add('GET', '/api/users', async ({ req, res, query }) => {
    const address = clientAddress(req);
    // A blocked address learns nothing: its password is not even compared.
    const waitMs = attempts.blockedForMs(address);
    if (waitMs > 0) {
      throw new HttpError(429, messages.tooManyFailures, { 'Retry-After': String(Math.ceil(waitMs / 1000)) });
    }
    if (!passwordMatches(singlePassword(query))) {
      attempts.recordFailure(address);
      return answers.wrongPassword(res);
    }
    attempts.recordSuccess(address);
    await sendUserList(res, store);
  });

  router.add('POST', '/api/users', async ({ req, res }) => {
    const { name, email } = validateUserInput(await readJsonObject(req));
    await store.create(name, email);
    sendJson(res, 201, created);
  });

  router.add('GET', '/api/users/:id', async ({ res, params }) => {
    const id = storableId(params.id!);
    const row = id === undefined ? undefined : await store.get(id);
    if (row) sendJson(res, 200, userJson(row));
    else answers.readMissing(res);
  }, byId);

  router.add('PUT', '/api/users/:id', async ({ req, res, params }) => {
    const { name, email } = validateUserInput(await readJsonObject(req));
    const id = storableId(params.id!);
    const found = id !== undefined && (await store.update(id, name, email));
    sendJson(res, found ? 200 : 404, found ? updated : userNotFound);
  }, byId);

  router.add('DELETE', '/api/users/:id', async ({ res, params }) => {
    const id = storableId(params.id!);
    const found = id !== undefined && (await store.remove(id));
    if (found) sendJson(res, 200, deleted);
    else answers.deleteMissing(res);
  }, byId);
}
