import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FailedAttempts } from '../../auth/failed-attempts.js';
import { readJsonObject } from '../../http/body.js';
import type { Handler } from '../../http/context.js';
import { HttpError, messages } from '../../errors/http-error.js';
import { errorBody, messageBody, sendJson, sendNotModified } from '../../http/respond.js';
import type { Router } from '../../http/router.js';
import { userNotFound as updateMissing, type Answer, type CompatAnswers } from './compat.js';
import type { WriteOutcome } from '../storage/conditional-writes.js';
import { etagOf, ifMatch, ifNoneMatch, tagMatches } from '../rules/etag.js';
import { isIdSegment, storableId } from '../rules/id.js';
import { sendUserList } from './list-response.js';
import { sendUserPage } from './page-response.js';
import { pageRequest } from '../rules/page-query.js';
import { singlePassword } from './password.js';
import type { UserStore } from '../storage/store.js';
import { userJson } from '../rules/user.js';
import { validateUserInput, validateUserPatch } from '../rules/validate.js';

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
const preconditionFailed = errorBody(messages.preconditionFailed);

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
    const page = pageRequest(query);
    if (page) await sendUserPage(res, store, page);
    else await sendUserList(res, store);
  });

  router.add('POST', '/api/users', async ({ req, res }) => {
    const { name, email } = validateUserInput(await readJsonObject(req));
    const id = await store.create(name, email);
    sendJson(res, 201, created, { Location: `/api/users/${id}` });
  });

  router.add('GET', '/api/users/:id', async ({ req, res, params }) => {
    const id = storableId(params.id!);
    const row = id === undefined ? undefined : await store.get(id);
    if (!row) return answers.readMissing(res);
    const etag = etagOf(row);
    const unless = ifNoneMatch(req.headers['if-none-match']);
    if (unless && tagMatches(unless, etag)) sendNotModified(res, etag);
    else sendJson(res, 200, userJson(row), { ETag: etag });
  }, byId);

  router.add('PUT', '/api/users/:id', async ({ req, res, params }) => {
    const { name, email } = validateUserInput(await readJsonObject(req));
    const id = storableId(params.id!);
    const precondition = ifMatch(req.headers['if-match']);
    if (precondition && id !== undefined) {
      return sendOutcome(res, await store.writeIf(id, { name, email }, precondition), updated, updateMissing);
    }
    const found = id !== undefined && (await store.update(id, name, email));
    if (found) sendJson(res, 200, updated);
    else updateMissing(res);
  }, byId);

  router.add('PATCH', '/api/users/:id', async ({ req, res, params }) => {
    const patch = validateUserPatch(await readJsonObject(req));
    const id = storableId(params.id!);
    if (id === undefined) return updateMissing(res);
    sendOutcome(res, await store.writeIf(id, patch, ifMatch(req.headers['if-match'])), updated, updateMissing);
  }, byId);

  router.add('DELETE', '/api/users/:id', async ({ req, res, params }) => {
    const id = storableId(params.id!);
    const precondition = ifMatch(req.headers['if-match']);
    if (precondition && id !== undefined) {
      return sendOutcome(res, await store.writeIf(id, 'remove', precondition), deleted, answers.deleteMissing);
    }
    const found = id !== undefined && (await store.remove(id));
    if (found) sendJson(res, 200, deleted);
    else answers.deleteMissing(res);
  }, byId);
}

/** A conditional write's answer: success with the user's new ETag (if it still exists), the missing answer, or 412. */
function sendOutcome(res: ServerResponse, outcome: WriteOutcome, success: string, missing: Answer): void {
  if (outcome.kind === 'not-found') missing(res);
  else if (outcome.kind === 'precondition-failed') sendJson(res, 412, preconditionFailed);
  else sendJson(res, 200, success, outcome.etag === undefined ? undefined : { ETag: outcome.etag });
}
