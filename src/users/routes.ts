import type { ServerResponse } from 'node:http';
import { readJsonObject } from '../http/body.js';
import type { Handler } from '../http/context.js';
import { HttpError, messages } from '../http/errors.js';
import { errorBody, messageBody, sendJson, sendNotModified } from '../http/respond.js';
import type { Router } from '../http/router.js';
import type { WriteOutcome } from './conditional-writes.js';
import { etagOf, ifMatch, ifNoneMatch, tagMatches } from './etag.js';
import { isIdSegment, storableId } from './id.js';
import { sendUserList } from './list-response.js';
import { sendUserPage } from './page-response.js';
import { pageRequest } from './page-query.js';
import { singlePassword } from './password.js';
import type { UserStore } from './store.js';
import { userJson } from './user.js';
import { validateUserInput, validateUserPatch } from './validate.js';

export interface UserRouteDeps {
  store: UserStore;
  passwordMatches: (candidate: string | undefined) => boolean;
}

const created = messageBody('User created successfully');
const updated = messageBody('User updated successfully');
const deleted = messageBody('User deleted successfully');
const userNotFound = errorBody(messages.userNotFound);
const preconditionFailed = errorBody(messages.preconditionFailed);

export function registerUserRoutes(router: Router<Handler>, { store, passwordMatches }: UserRouteDeps): void {
  const byId = { id: isIdSegment };

  router.add('GET', '/api/users', async ({ res, query }) => {
    if (!passwordMatches(singlePassword(query))) throw new HttpError(401, messages.invalidPassword);
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
    if (!row) return sendJson(res, 404, userNotFound);
    const etag = etagOf(row);
    const unless = ifNoneMatch(req.headers['if-none-match']);
    if (unless && tagMatches(unless, etag)) sendNotModified(res, etag);
    else sendJson(res, 200, userJson(row), { ETag: etag });
  }, byId);

  router.add('PUT', '/api/users/:id', async ({ req, res, params }) => {
    const { name, email } = validateUserInput(await readJsonObject(req));
    const id = storableId(params.id!);
    const precondition = ifMatch(req.headers['if-match']);
    if (precondition && id !== undefined) return sendOutcome(res, await store.writeIf(id, { name, email }, precondition), updated);
    const found = id !== undefined && (await store.update(id, name, email));
    sendJson(res, found ? 200 : 404, found ? updated : userNotFound);
  }, byId);

  router.add('PATCH', '/api/users/:id', async ({ req, res, params }) => {
    const patch = validateUserPatch(await readJsonObject(req));
    const id = storableId(params.id!);
    if (id === undefined) return sendJson(res, 404, userNotFound);
    sendOutcome(res, await store.writeIf(id, patch, ifMatch(req.headers['if-match'])), updated);
  }, byId);

  router.add('DELETE', '/api/users/:id', async ({ req, res, params }) => {
    const id = storableId(params.id!);
    const precondition = ifMatch(req.headers['if-match']);
    if (precondition && id !== undefined) return sendOutcome(res, await store.writeIf(id, 'remove', precondition), deleted);
    const found = id !== undefined && (await store.remove(id));
    sendJson(res, found ? 200 : 404, found ? deleted : userNotFound);
  }, byId);
}

/** A conditional write's answer: success with the user's new ETag (if it still exists), 404 or 412. */
function sendOutcome(res: ServerResponse, outcome: WriteOutcome, success: string): void {
  if (outcome.kind === 'not-found') sendJson(res, 404, userNotFound);
  else if (outcome.kind === 'precondition-failed') sendJson(res, 412, preconditionFailed);
  else sendJson(res, 200, success, outcome.etag === undefined ? undefined : { ETag: outcome.etag });
}
