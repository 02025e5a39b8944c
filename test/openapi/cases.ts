import type { ApiCompat } from '../../src/config.js';
import { type ApiResponse, request } from '../helpers/http.js';
import { TEST_PASSWORD } from '../helpers/service.js';
import { badBodies, refusedRequests } from './bad-requests.js';
import { document, operation } from './document.js';

/**
 * What must hold on the server while a case runs: nothing special, the users table renamed away
 * (every storage call fails), or the service's only database connection held with its one-slot
 * wait queue full (every storage call is refused at once).
 */
export type Setup = 'normal' | 'storage-down' | 'pool-full';

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

/** A request with a JSON body for POST and PUT, none otherwise. */
const send = (method: string, path: string, body: unknown = validUser) => (baseUrl: string) =>
  request(baseUrl, method, path, method === 'POST' || method === 'PUT' ? { json: body } : {});

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
  ['deleteUser', 'DELETE', '/api/users/1'],
  ['getLiveness', 'GET', '/healthz'],
  ['getReadiness', 'GET', '/readyz'],
] as const;
const userOperations = new Set(['listUsers', 'getUser', 'createUser', 'updateUser', 'deleteUser']);
const storageCalls = requestLines.filter(([operationId]) => userOperations.has(operationId));
const shown = (path: string) => path.split('?')[0];

/** The answers that differ between modes (spec 7.2), as [status, documented example]. */
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
  row('getUser', 'GET /api/users/1 -> 200, a User', [200], send('GET', '/api/users/1')),
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

const storageDown: Case[] = storageCalls.map(([operationId, method, path]) =>
  row(
    operationId,
    `${method} ${shown(path)} with the users table renamed away -> 500 databaseError`,
    [500, 'databaseError'],
    send(method, path),
    'storage-down',
  ),
);

const poolFull: Case[] = [
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

/** Every case, as a service in `mode` must answer it. */
export function casesFor(mode: ApiCompat): Case[] {
  return [...normalCases(mode), ...storageDown, ...poolFull];
}

/** Documented examples no case reproduces, and why. */
export const examplesNotReproduced: Record<string, string> = {
  users: 'list data varies with the database',
  empty: 'list data varies with the database',
  user: 'user data varies with the database',
  internalError: 'a non-storage failure cannot be caused from outside without breaking the code',
  timedOut: 'the header timeout is 10 s: too slow for this suite (the status is covered by 431 and 400)',
};
