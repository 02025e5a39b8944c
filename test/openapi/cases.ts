import type { ApiCompat } from '../../src/config/environment.js';
import { type ApiResponse, request } from '../helpers/http.js';
import { TEST_PASSWORD } from '../helpers/service.js';
import { badBodies, refusedRequests } from './bad-requests.js';
import { document, operation } from './document.js';

/**
 * What must hold on the server while a case runs: nothing special, the users table renamed away
 * (every storage call fails), or the service's only database connection held with its one-slot
 * wait queue full (every storage call is refused at once).
 */
export type Setup = 'normal' | 'storage-down' | 'pool-full' | 'integrity' | 'events-pruned' | 'events-down' | 'not-ready';

/** One real request and the documented answer it must get. */
export interface Case {
  rule: string;
  operationId: string;
  status: number;
  /** A documented example the body must equal exactly. */
  example?: string;
  setup: Setup;
  send(baseUrl: string): Promise<ApiResponse>;
}

const ABSENT_USER = 999_999;
const validUser = { name: 'Ada', email: 'a@b.c' };
const idSchema = operation('getUser').parameters.find((parameter) => parameter.name === 'id')!.schema;
const requestExamples = Object.entries(
  document.components.requestBodies!.UserInput!.content['application/json']!.examples!,
);
const patchExamples = Object.entries(
  document.components.requestBodies!.UserPatch!.content['application/merge-patch+json']!.examples!,
);
/** Patch bodies refused, each with the documented example it produces. */
const badPatches: Array<[what: string, body: unknown, example: string]> = [
  ['neither name nor email', { id: 5 }, 'nameOrEmailRequired'],
  ['an empty email', { email: '' }, 'emailEmpty'],
  ['a null name', { name: null }, 'nameNotString'],
  ['a name of 101 characters', { name: 'x'.repeat(101) }, 'nameTooLong'],
  ['a JSON array', [], 'notAnObject'],
];

const STALE_TAG = '"ffffffffffffffffffffffffffffffff"';
const withBody = new Set(['POST', 'PUT', 'PATCH']);

/** A request with a JSON body for POST, PUT and PATCH, none otherwise. */
const send = (method: string, path: string, body: unknown = validUser, headers: Record<string, string> = {}) => (baseUrl: string) =>
  request(baseUrl, method, path, withBody.has(method) ? { json: body, headers } : { headers });

/** A PATCH with a merge-patch body. */
const sendPatch = (path: string, body: unknown, headers: Record<string, string> = {}) => (baseUrl: string) =>
  request(baseUrl, 'PATCH', path, { body: JSON.stringify(body), headers: { 'content-type': 'application/merge-patch+json', ...headers } });

/** GET of a user with its own current ETag in If-None-Match. */
const sendRevalidation = (path: string) => async (baseUrl: string) => {
  const current = (await request(baseUrl, 'GET', path)).headers.get('etag') ?? '"none"';
  return request(baseUrl, 'GET', path, { headers: { 'if-none-match': current } });
};

/** A case: `answer` is the status and, when the body is fixed, the documented example it equals. */
function row(
  operationId: string,
  rule: string,
  answer: [status: number, example?: string],
  sender: Case['send'],
  setup: Setup = 'normal',
): Case {
  const [status, example] = answer;
  return { rule, operationId, status, ...(example ? { example } : {}), setup, send: sender };
}

/** Every documented operation as a concrete request (ids filled in). */
const requestLines = [
  ['listUsers', 'GET', `/api/users?pwd=${TEST_PASSWORD}`],
  ['getUser', 'GET', '/api/users/1'],
  ['createUser', 'POST', '/api/users'],
  ['updateUser', 'PUT', '/api/users/1'],
  ['patchUser', 'PATCH', '/api/users/1'],
  ['deleteUser', 'DELETE', '/api/users/1'],
  ['getLiveness', 'GET', '/healthz'],
  ['getReadiness', 'GET', '/readyz'],
  ['getIndex', 'GET', '/'],
] as const;
const userOperations = new Set(['listUsers', 'getUser', 'createUser', 'updateUser', 'patchUser', 'deleteUser']);
const storageCalls = requestLines.filter(([operationId]) => userOperations.has(operationId));
const shown = (path: string) => path.split('?')[0];

/** The answers that differ between modes (the compatibility table of docs/api.md), as [status, documented example]. */
const wrongPassword: Record<ApiCompat, [number, string]> = {
  contract: [401, 'invalidPassword'],
  earlier: [200, 'wrongPassword'],
  fastapi: [403, 'wrongPassword'],
};
const readMissing: Record<ApiCompat, [number, string]> = {
  contract: [404, 'userNotFound'],
  earlier: [500, 'userNotFound'],
  fastapi: [404, 'userNotFound'],
};

/** Ten wrong passwords from one address (the service trusts X-Forwarded-For here), then the right one. */
const afterTenFailures = async (baseUrl: string): Promise<ApiResponse> => {
  const headers = { 'x-forwarded-for': `198.51.100.${Math.floor(Math.random() * 250) + 1}` };
  for (let i = 0; i < 10; i++) await request(baseUrl, 'GET', '/api/users?pwd=wrong', { headers });
  return request(baseUrl, 'GET', `/api/users?pwd=${TEST_PASSWORD}`, { headers });
};

const normalCases = (mode: ApiCompat): Case[] => [
  row(
    'listUsers',
    'GET /api/users with the password -> 200, an array of User',
    [200],
    send('GET', `/api/users?pwd=${TEST_PASSWORD}`),
  ),
  ...[
    ['without pwd', '/api/users'],
    ['with a wrong pwd', '/api/users?pwd=wrong'],
    ['with pwd given twice', `/api/users?pwd=${TEST_PASSWORD}&pwd=${TEST_PASSWORD}`],
  ].map(([what, path]) =>
    row('listUsers', `GET /api/users ${what} -> ${wrongPassword[mode].join(' ')}`, wrongPassword[mode], send('GET', path!)),
  ),
  row(
    'listUsers',
    'GET /api/users after 10 wrong passwords from its address -> 429 tooManyFailedAttempts',
    [429, 'tooManyFailedAttempts'],
    afterTenFailures,
  ),
  row(
    'listUsers',
    'GET /api/users with the password and limit=2 -> 200, a page of User with a next Link',
    [200],
    send('GET', `/api/users?pwd=${TEST_PASSWORD}&limit=2`),
  ),
  row(
    'listUsers',
    'GET /api/users with q, sort=-name, limit=1 and Prefer: count=exact -> 200, a page with a cursor Link and X-Total-Count',
    [200],
    send('GET', `/api/users?pwd=${TEST_PASSWORD}&q=e&sort=-name&limit=1`, undefined, { prefer: 'count=exact' }),
  ),
  row('listUsers', 'GET /api/users with email= -> 200, the users with that email', [200], send('GET', `/api/users?pwd=${TEST_PASSWORD}&email=jane%40example.com`)),
  ...[
    ['limit=0', 'limitInvalid'],
    ['limit=2&after=x', 'afterInvalid'],
    ['after=3', 'afterWithoutLimit'],
    ['sort=age', 'sortInvalid'],
    ['q=', 'findTextInvalid'],
    [`email=${'e'.repeat(101)}`, 'findEmailInvalid'],
    ['sort=id&sort=name', 'parameterRepeated'],
    ['limit=2&sort=name&cursor=bm90IG1pbmU.AAAAAAAAAAAAAAAAAAAAAA', 'cursorInvalid'],
    ['sort=name&cursor=x', 'cursorWithoutLimit'],
    ['limit=2&sort=name&after=2', 'afterNeedsIdSort'],
    ['limit=2&after=2&cursor=x', 'afterWithCursor'],
  ].map(([query, example]) =>
    row('listUsers', `GET /api/users with the password and ${query} -> 400 ${example}`, [400, example], send('GET', `/api/users?pwd=${TEST_PASSWORD}&${query}`)),
  ),
  row('getUser', 'GET /api/users/1 -> 200, a User', [200], send('GET', '/api/users/1')),
  row('getUser', 'GET /api/users/1 with its current ETag in If-None-Match -> 304, no body', [304], sendRevalidation('/api/users/1')),
  ...[ABSENT_USER, idSchema.minimum, idSchema.maximum].map((id) =>
    row(
      'getUser',
      `GET /api/users/${String(id)} (no such user; documented ids reach the route) -> ${readMissing[mode].join(' ')}`,
      readMissing[mode],
      send('GET', `/api/users/${String(id)}`),
    ),
  ),
  ...requestExamples.flatMap(([name, { value }]) => [
    row(
      'createUser',
      `POST /api/users with the documented example "${name}" -> 201 created`,
      [201, 'created'],
      send('POST', '/api/users', value),
    ),
    row(
      'updateUser',
      `PUT /api/users/2 with the documented example "${name}" -> 200 updated`,
      [200, 'updated'],
      send('PUT', '/api/users/2', value),
    ),
  ]),
  // PUT bodies go to an absent user: the body is checked before the user's existence.
  ...[
    ['createUser', 'POST', '/api/users'],
    ['updateUser', 'PUT', `/api/users/${ABSENT_USER}`],
  ].flatMap(([operationId, method, path]) =>
    badBodies.map((bad) =>
      row(
        operationId!,
        `${method} ${path} with ${bad.what} -> ${bad.status} ${bad.example}`,
        [bad.status, bad.example],
        bad.send(method!, path!),
      ),
    ),
  ),
  row(
    'updateUser',
    'PUT /api/users/2 with If-Match: * -> 200 updated, with the new ETag',
    [200, 'updated'],
    send('PUT', '/api/users/2', validUser, { 'if-match': '*' }),
  ),
  row(
    'updateUser',
    'PUT /api/users/2 with a stale If-Match -> 412 preconditionFailed',
    [412, 'preconditionFailed'],
    send('PUT', '/api/users/2', validUser, { 'if-match': STALE_TAG }),
  ),
  ...patchExamples.map(([name, { value }]) =>
    row('patchUser', `PATCH /api/users/2 with the documented example "${name}" -> 200 updated`, [200, 'updated'], sendPatch('/api/users/2', value)),
  ),
  row('patchUser', 'PATCH /api/users/2 as application/json -> 200 updated', [200, 'updated'], send('PATCH', '/api/users/2', { name: 'Plain' })),
  ...badPatches.map(([what, body, example]) =>
    row('patchUser', `PATCH /api/users/${ABSENT_USER} with ${what} -> 400 ${example}`, [400, example], sendPatch(`/api/users/${ABSENT_USER}`, body)),
  ),
  ...badBodies
    .filter((bad) => bad.status !== 400 || bad.example === 'invalidJson')
    .map((bad) =>
      row('patchUser', `PATCH /api/users/2 with ${bad.what} -> ${bad.status} ${bad.example}`, [bad.status, bad.example], bad.send('PATCH', '/api/users/2')),
    ),
  row('patchUser', 'PATCH of an absent user, valid body -> 404 userNotFound', [404, 'userNotFound'], sendPatch(`/api/users/${ABSENT_USER}`, { name: 'Ghost' })),
  row(
    'patchUser',
    'PATCH /api/users/2 with a stale If-Match -> 412 preconditionFailed',
    [412, 'preconditionFailed'],
    sendPatch('/api/users/2', { name: 'Late' }, { 'if-match': STALE_TAG }),
  ),
  row(
    'deleteUser',
    'DELETE /api/users/4 with a stale If-Match -> 412 preconditionFailed',
    [412, 'preconditionFailed'],
    send('DELETE', '/api/users/4', undefined, { 'if-match': STALE_TAG }),
  ),
  row(
    'updateUser',
    'PUT of an absent user, valid body -> 404 userNotFound',
    [404, 'userNotFound'],
    send('PUT', `/api/users/${ABSENT_USER}`),
  ),
  row('deleteUser', 'DELETE /api/users/3 -> 200 deleted', [200, 'deleted'], send('DELETE', '/api/users/3')),
  row(
    'deleteUser',
    'DELETE of an absent user -> 404 userNotFound',
    [404, 'userNotFound'],
    send('DELETE', `/api/users/${ABSENT_USER}`),
  ),
  row('getLiveness', 'GET /healthz -> 200 alive', [200, 'alive'], send('GET', '/healthz')),
  row('getReadiness', 'GET /readyz with the database up -> 200 ready', [200, 'ready'], send('GET', '/readyz')),
  row('getIndex', 'GET / -> 200 index, pointing to the docs', [200, 'index'], send('GET', '/')),
  ...requestLines.flatMap(([operationId, method, path]) =>
    refusedRequests.map((bad) =>
      row(
        operationId,
        `${method} ${shown(path)} ${bad.what} -> ${bad.status} ${bad.example}`,
        [bad.status, bad.example],
        bad.send(method, path),
      ),
    ),
  ),
];

/** Storage calls that take paths of their own: a page of the list, and writes conditional on the version. */
const otherStorageCalls: Array<[operationId: string, what: string, sender: Case['send']]> = [
  ['listUsers', 'GET /api/users with limit=2', send('GET', `/api/users?pwd=${TEST_PASSWORD}&limit=2`)],
  ['listUsers', 'GET /api/users with q and sort=name (streamed)', send('GET', `/api/users?pwd=${TEST_PASSWORD}&q=e&sort=name`)],
  ['listUsers', 'GET /api/users with Prefer: count=exact', send('GET', `/api/users?pwd=${TEST_PASSWORD}&limit=2`, undefined, { prefer: 'count=exact' })],
  ['updateUser', 'PUT /api/users/1 with If-Match: *', send('PUT', '/api/users/1', validUser, { 'if-match': '*' })],
  ['deleteUser', 'DELETE /api/users/1 with If-Match: *', send('DELETE', '/api/users/1', undefined, { 'if-match': '*' })],
];

const storageDown: Case[] = [
  ...storageCalls.map(([operationId, method, path]) =>
    row(
      operationId,
      `${method} ${shown(path)} with the users table renamed away -> 500 databaseError`,
      [500, 'databaseError'],
      send(method, path),
      'storage-down',
    ),
  ),
  ...otherStorageCalls.map(([operationId, what, sender]) =>
    row(operationId, `${what} with the users table renamed away -> 500 databaseError`, [500, 'databaseError'], sender, 'storage-down'),
  ),
];

const poolFull: Case[] = [
  ...otherStorageCalls.map(([operationId, what, sender]) =>
    row(operationId, `${what} with the connection queue full -> 503 busy`, [503, 'busy'], sender, 'pool-full'),
  ),
  ...storageCalls.map(([operationId, method, path]) =>
    row(
      operationId,
      `${method} ${shown(path)} with the connection queue full -> 503 busy`,
      [503, 'busy'],
      send(method, path),
      'pool-full',
    ),
  ),
  row(
    'getReadiness',
    'GET /readyz when the database cannot be reached -> 503 databaseUnavailable',
    [503, 'databaseUnavailable'],
    send('GET', '/readyz'),
    'pool-full',
  ),
];

/** A service whose schema is not in place yet: every API request is refused before it is routed. */
const notReady: Case[] = [
  ...storageCalls.map(([operationId, method, path]) =>
    row(operationId, `${method} ${shown(path)} before the schema is in place -> 503 starting`, [503, 'starting'], send(method, path), 'not-ready'),
  ),
  ...otherStorageCalls.map(([operationId, what, sender]) =>
    row(operationId, `${what} before the schema is in place -> 503 starting`, [503, 'starting'], sender, 'not-ready'),
  ),
];

/** `GET /metrics`, for a service that serves it on its API port: the figures, and the refusals any request can get. */
const metricsCases: Case[] = [
  row('getMetrics', 'GET /metrics -> 200, the figures in the text format', [200], send('GET', '/metrics')),
  ...refusedRequests.map((bad) =>
    row('getMetrics', `GET /metrics ${bad.what} -> ${bad.status} ${bad.example}`, [bad.status, bad.example], bad.send('GET', '/metrics')),
  ),
];

/** The same Idempotency-Key with one body, then another: the second's answer. */
const keyReused = async (baseUrl: string): Promise<ApiResponse> => {
  const headers = { 'idempotency-key': `reused-${Date.now()}` };
  await request(baseUrl, 'POST', '/api/users', { json: { name: 'Kim', email: 'kim@example.com' }, headers });
  return request(baseUrl, 'POST', '/api/users', { json: { name: 'Kim Other', email: 'kim@example.com' }, headers });
};

/** One Idempotency-Key on several requests at once: one that arrived while the first was still being answered (409), if any. */
const keyInFlight = async (baseUrl: string): Promise<ApiResponse> => {
  const headers = { 'idempotency-key': `in-flight-${Date.now()}` };
  const answers = await Promise.all(Array.from({ length: 8 }, () => request(baseUrl, 'POST', '/api/users', { json: { name: 'Lee', email: 'lee@example.com' }, headers })));
  return answers.find((answer) => answer.status === 409) ?? answers[0]!;
};

/** A service with VALIDATE_EMAIL=on, UNIQUE_EMAIL=on and IDEMPOTENCY=on: a malformed email is 400, another user's email 409, a reused key 422. */
const integrityCases: Case[] = [
  row('createUser', 'POST /api/users with email not-an-email (VALIDATE_EMAIL=on) -> 400 invalidEmail', [400, 'invalidEmail'], send('POST', '/api/users', { name: 'Ann', email: 'not-an-email' }), 'integrity'),
  row('updateUser', 'PUT /api/users/1 with email not-an-email (VALIDATE_EMAIL=on) -> 400 invalidEmail', [400, 'invalidEmail'], send('PUT', '/api/users/1', { name: 'Ann', email: 'not-an-email' }), 'integrity'),
  row('patchUser', 'PATCH /api/users/1 with email not-an-email (VALIDATE_EMAIL=on) -> 400 invalidEmail', [400, 'invalidEmail'], sendPatch('/api/users/1', { email: 'not-an-email' }), 'integrity'),
  row('createUser', "POST /api/users with Jane's email in capitals (UNIQUE_EMAIL=on) -> 409 emailInUse", [409, 'emailInUse'], send('POST', '/api/users', { name: 'Jane Again', email: 'JANE@example.com' }), 'integrity'),
  row('updateUser', "PUT /api/users/1 with Jane's email (UNIQUE_EMAIL=on) -> 409 emailInUse", [409, 'emailInUse'], send('PUT', '/api/users/1', { name: 'John Doe', email: 'jane@example.com' }), 'integrity'),
  row('patchUser', "PATCH /api/users/1 with Jane's email (UNIQUE_EMAIL=on) -> 409 emailInUse", [409, 'emailInUse'], sendPatch('/api/users/1', { email: 'Jane@Example.com' }), 'integrity'),
  row('createUser', 'POST /api/users with an empty Idempotency-Key (IDEMPOTENCY=on) -> 400 invalidIdempotencyKey', [400, 'invalidIdempotencyKey'], send('POST', '/api/users', { name: 'Ida', email: 'ida@example.com' }, { 'idempotency-key': '' }), 'integrity'),
  row('createUser', 'POST /api/users with an Idempotency-Key first used with another body (IDEMPOTENCY=on) -> 422 idempotencyKeyReused', [422, 'idempotencyKeyReused'], keyReused, 'integrity'),
  row('createUser', 'POST /api/users with an Idempotency-Key whose first request is in progress (IDEMPOTENCY=on) -> 409 idempotencyKeyInFlight', [409, 'idempotencyKeyInFlight'], keyInFlight, 'integrity'),
];

/** The head and first bytes of an event stream, then the client hangs up: a stream does not end by itself. */
const openStream = (path: string, headers: Record<string, string> = {}) => async (baseUrl: string): Promise<ApiResponse> => {
  const hangUp = new AbortController();
  const response = await fetch(baseUrl + path, { headers, signal: hangUp.signal });
  const first = await response.body!.getReader().read();
  hangUp.abort();
  return { status: response.status, headers: response.headers, text: Buffer.from(first.value ?? []).toString('utf8'), json: undefined };
};

const EVENTS = '/api/users/events';

/** Ten wrong passwords on the stream from one address, then the right one. */
const streamAfterTenFailures = async (baseUrl: string): Promise<ApiResponse> => {
  const headers = { 'x-forwarded-for': `203.0.113.${Math.floor(Math.random() * 250) + 1}` };
  for (let i = 0; i < 10; i++) await request(baseUrl, 'GET', `${EVENTS}?pwd=wrong`, { headers });
  return request(baseUrl, 'GET', `${EVENTS}?pwd=${TEST_PASSWORD}`, { headers });
};

/** `GET /api/users/events`, for a service with EVENTS=on. */
const eventCases: Case[] = [
  row('streamUserEvents', 'GET /api/users/events with the password -> 200, a text/event-stream', [200], openStream(`${EVENTS}?pwd=${TEST_PASSWORD}`)),
  row('streamUserEvents', 'GET /api/users/events resuming with Last-Event-ID: 0 -> 200', [200], openStream(`${EVENTS}?pwd=${TEST_PASSWORD}`, { 'last-event-id': '0' })),
  row('streamUserEvents', 'GET /api/users/events with after=01 -> 400 afterInvalid', [400, 'afterInvalid'], send('GET', `${EVENTS}?pwd=${TEST_PASSWORD}&after=01`)),
  row('streamUserEvents', 'GET /api/users/events with after given twice -> 400 afterRepeated', [400, 'afterRepeated'], send('GET', `${EVENTS}?pwd=${TEST_PASSWORD}&after=1&after=2`)),
  row('streamUserEvents', 'GET /api/users/events with types=user.created,user.deleted -> 200, a text/event-stream', [200], openStream(`${EVENTS}?pwd=${TEST_PASSWORD}&types=user.created,user.deleted`)),
  row('streamUserEvents', 'GET /api/users/events with types=user.removed -> 400 typesInvalid', [400, 'typesInvalid'], send('GET', `${EVENTS}?pwd=${TEST_PASSWORD}&types=user.removed`)),
  row('streamUserEvents', 'GET /api/users/events with an empty types -> 400 typesInvalid', [400, 'typesInvalid'], send('GET', `${EVENTS}?pwd=${TEST_PASSWORD}&types=`)),
  row('streamUserEvents', 'GET /api/users/events with types given twice -> 400 typesRepeated', [400, 'typesRepeated'], send('GET', `${EVENTS}?pwd=${TEST_PASSWORD}&types=user.created&types=user.deleted`)),
  row('streamUserEvents', 'GET /api/users/events with a parameter it does not take (type) -> 400 unknownParameter', [400, 'unknownParameter'], send('GET', `${EVENTS}?pwd=${TEST_PASSWORD}&type=user.created`)),
  row('streamUserEvents', 'GET /api/users/events with Last-Event-ID: x -> 400 lastEventIdInvalid', [400, 'lastEventIdInvalid'], send('GET', `${EVENTS}?pwd=${TEST_PASSWORD}`, undefined, { 'last-event-id': 'x' })),
  row('streamUserEvents', 'GET /api/users/events without pwd -> 401 invalidPassword', [401, 'invalidPassword'], send('GET', EVENTS)),
  row('streamUserEvents', 'GET /api/users/events with a wrong pwd -> 401 invalidPassword', [401, 'invalidPassword'], send('GET', `${EVENTS}?pwd=wrong`)),
  row('streamUserEvents', 'GET /api/users/events after 10 wrong passwords from its address -> 429 tooManyFailedAttempts', [429, 'tooManyFailedAttempts'], streamAfterTenFailures),
  row('streamUserEvents', 'GET /api/users/events resuming before the pruned events -> 410 eventsGone, naming the oldest kept', [410, 'eventsGone'], send('GET', `${EVENTS}?pwd=${TEST_PASSWORD}&after=1`), 'events-pruned'),
  row('streamUserEvents', 'GET /api/users/events with the event tables renamed away -> 500 databaseError', [500, 'databaseError'], send('GET', `${EVENTS}?pwd=${TEST_PASSWORD}`), 'events-down'),
  row('streamUserEvents', 'GET /api/users/events with the connection queue full -> 503 busy', [503, 'busy'], send('GET', `${EVENTS}?pwd=${TEST_PASSWORD}`), 'pool-full'),
  row('streamUserEvents', 'GET /api/users/events before the schema is in place -> 503 starting', [503, 'starting'], send('GET', `${EVENTS}?pwd=${TEST_PASSWORD}`), 'not-ready'),
  ...refusedRequests.map((bad) =>
    row('streamUserEvents', `GET ${EVENTS} ${bad.what} -> ${bad.status} ${bad.example}`, [bad.status, bad.example], bad.send('GET', `${EVENTS}?pwd=${TEST_PASSWORD}`)),
  ),
];

/** Every case, as a service in `mode` must answer it (with `/metrics` when it serves that, the event stream with EVENTS=on). */
export function casesFor(mode: ApiCompat, metricsOnApiPort: boolean, events = false): Case[] {
  return [
    ...normalCases(mode),
    ...(metricsOnApiPort ? metricsCases : []),
    ...(events ? [...eventCases, ...webhookEndpointsWithoutAuth] : []),
    ...storageDown,
    ...poolFull,
    ...notReady,
    ...integrityCases,
  ];
}

/**
 * With AUTH=off every webhook endpoint operation answers 403 authOff (its other answers need a
 * token: conformance-webhooks.test.ts proves them with AUTH on).
 */
const webhookEndpointsWithoutAuth: Case[] = [
  ['listWebhookEndpoints', 'GET', '/api/webhooks/endpoints'],
  ['createWebhookEndpoint', 'POST', '/api/webhooks/endpoints'],
  ['getWebhookEndpoint', 'GET', '/api/webhooks/endpoints/1'],
  ['updateWebhookEndpoint', 'PATCH', '/api/webhooks/endpoints/1'],
  ['deleteWebhookEndpoint', 'DELETE', '/api/webhooks/endpoints/1'],
  ['getWebhookEndpointSecret', 'GET', '/api/webhooks/endpoints/1/secret'],
  ['rotateWebhookEndpointSecret', 'POST', '/api/webhooks/endpoints/1/secret/rotate'],
  ['listWebhookAttempts', 'GET', '/api/webhooks/endpoints/1/attempts'],
  ['getWebhookEndpointStats', 'GET', '/api/webhooks/endpoints/1/stats'],
  ['recoverWebhookEndpoint', 'POST', '/api/webhooks/endpoints/1/recover'],
  ['resendWebhookEvent', 'POST', '/api/webhooks/endpoints/1/events/1/resend'],
].map(([operationId, method, path]) =>
  row(operationId!, `${method} ${path} with AUTH=off -> 403 authOff`, [403, 'authOff'], send(method!, path!, { url: 'https://hooks.example.com/x' })),
);

/** The operations that need a token whatever the mode: every answer but AUTH=off's 403 is proven with AUTH on. */
export const provenWithAuth = (path: string): boolean => path.startsWith('/api/webhooks/');

/** Documented examples no case reproduces, and why. */
export const examplesNotReproduced: Record<string, string> = {
  users: 'list data varies with the database',
  empty: 'list data varies with the database',
  user: 'user data varies with the database',
  internalError: 'a non-storage failure cannot be caused from outside without breaking the code',
  timedOut: 'the header timeout is 10 s: too slow for this suite (the status is covered by 431 and 400)',
  exposition: 'the figures change with every request (the body is checked against its schema)',
  shuttingDown: 'only after SIGTERM: test/operations/shutdown-delay.test.ts checks that answer',
  stream: 'event ids and times vary (the stream is checked to open with its retry line)',
};
