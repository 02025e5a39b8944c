import { sortStatuses } from './sort-statuses.js';

type Json = Record<string, unknown>;
type Operation = Json & { responses: Json; security?: unknown; parameters?: Json[] };

/** AUTH's two protected modes; `off` serves openapi.json as it is. */
export type ProtectedMode = 'writes' | 'all';

export const BEARER_SCHEME = 'bearerToken';

const REQUEST_ID = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
const ERROR = { $ref: '#/components/schemas/Error' };

const challenge = (description: string, example: string): Json => ({
  description,
  schema: { type: 'string', example },
  required: true,
});

const invalidToken: Json = { summary: 'A token that is not valid', value: { error: 'Invalid token' } };
const invalidTokenChallenge = 'Bearer realm="users", error="invalid_token"';

const unauthorized: Json = {
  description: 'No bearer token (or another scheme than `Bearer`), or a token that is not valid: unknown or revoked, expired, not yet valid, badly signed, or for another issuer or audience.',
  headers: {
    'WWW-Authenticate': challenge('The challenge of RFC 6750: `error="invalid_token"` when a token was sent but refused.', invalidTokenChallenge),
    ...REQUEST_ID,
  },
  content: {
    'application/json': {
      schema: ERROR,
      examples: {
        authenticationRequired: { summary: 'No bearer token', value: { error: 'Authentication required' } },
        invalidToken,
      },
    },
  },
};

const forbidden: Json = {
  description: 'A valid token without the scope the operation needs (named in `WWW-Authenticate`).',
  headers: {
    'WWW-Authenticate': challenge('The challenge of RFC 6750, naming the scope needed.', 'Bearer realm="users", error="insufficient_scope", scope="users:write"'),
    ...REQUEST_ID,
  },
  content: {
    'application/json': {
      schema: ERROR,
      examples: { insufficientScope: { summary: 'Token without the scope', value: { error: 'Insufficient scope' } } },
    },
  },
};

const scheme = (stream: boolean): Json => ({
  type: 'http',
  scheme: 'bearer',
  description:
    'An API key made by `npm run key:new`, or a JWT from the identity provider the server trusts (`JWT_SECRET`, `JWT_PUBLIC_KEY_FILE` or `JWT_JWKS_URL`). ' +
    `Scopes: \`users:read\` (read users)${stream ? ', `users:write` (create, update, delete), `events:read` (read the change-event stream) and `webhooks:admin` (manage webhook endpoints)' : ' and `users:write` (create, update, delete)'}, from the key, or from the JWT's \`scope\` or \`scp\` claim.`,
});

const EVENTS_PATH = '/api/users/events';

/**
 * The description of a server with AUTH on: the bearer scheme, the scope each protected operation
 * needs, and its 401 and 403 answers, so Swagger UI's "Authorize" sends the token and generated
 * clients know it is needed. With `writes` the writes are protected; with `all` reading one user
 * too, and the list takes `pwd` or a token with `users:read`. The event stream, when served, takes
 * what the list takes or a token with `events:read` (see describeStreamAuth).
 */
export function describeAuth(source: Json, mode: ProtectedMode): Json {
  const doc = structuredClone(source) as Json & { info: Json; components: Json; paths: Record<string, Record<string, Operation>> };
  const stream = doc.paths[EVENTS_PATH]?.get;
  doc.components.securitySchemes = { [BEARER_SCHEME]: scheme(stream !== undefined) };
  doc.info.description = `${String(doc.info.description)}\n\n${note[mode]}${stream ? ` ${streamNote[mode]}` : ''}`;
  const users = doc.paths['/api/users']!;
  const user = doc.paths['/api/users/{id}']!;
  for (const operation of [users.post!, user.put!, user.patch!, user.delete!]) protect(operation, 'users:write');
  // Webhook endpoints (served with EVENTS=on) need webhooks:admin whatever the mode.
  for (const [path, item] of Object.entries(doc.paths)) {
    if (path.startsWith('/api/webhooks/')) for (const operation of Object.values(item)) protect(operation, 'webhooks:admin');
  }
  // Its 403 with AUTH=off is answered no more: a token without the scope is.
  delete (doc.components.responses as Json | undefined)?.WebhooksForbidden;
  if (mode === 'all') {
    protect(user.get!, 'users:read');
    // The list: either credential will do, the token or the contract's pwd (an empty requirement: none in the header).
    const list = users.get!;
    list.security = [{ [BEARER_SCHEME]: ['users:read'] }, {}];
    list.responses['401'] = listUnauthorized(list.responses['401'] as Json | undefined);
    list.responses['403'] = forbidden;
    sortStatuses(list.responses);
    (doc.components.parameters as Json).AccessPassword = optionalPassword;
  }
  if (stream) describeStreamAuth(stream, doc.components, mode);
  return doc;
}

/**
 * The event stream with AUTH on: a token with `events:read` or the contract's `pwd`, and with
 * `all` a token with `users:read` too, as on the list. With `writes` a token that does not let in
 * is not answered for: `pwd` decides, with the contract's 401 (no 403).
 */
function describeStreamAuth(stream: Operation, components: Json, mode: ProtectedMode): void {
  const parameters = components.parameters as Json;
  parameters.StreamPassword = streamPassword[mode];
  stream.parameters = stream.parameters?.map((parameter) => (parameter.$ref === '#/components/parameters/AccessPassword' ? { $ref: '#/components/parameters/StreamPassword' } : parameter));
  if (mode === 'writes') {
    stream.security = [{ [BEARER_SCHEME]: ['events:read'] }, {}];
    const byPassword = stream.responses['401'] as { description: string } | undefined;
    if (byPassword) stream.responses['401'] = { ...byPassword, description: `${byPassword.description} ${tokenIgnored}` };
    return;
  }
  stream.security = [{ [BEARER_SCHEME]: ['users:read'] }, { [BEARER_SCHEME]: ['events:read'] }, {}];
  stream.responses['401'] = listUnauthorized(stream.responses['401'] as Json | undefined);
  stream.responses['403'] = streamForbidden;
  sortStatuses(stream.responses);
}

const tokenIgnored = 'A bearer token that is not valid, or lacks `events:read`, does not let in and is not answered for: `pwd` decides, as without a token.';

const streamForbidden: Json = {
  ...forbidden,
  description: 'A valid token with neither `users:read` nor `events:read` (the challenge names `users:read`, as on the list).',
  headers: {
    'WWW-Authenticate': challenge('The challenge of RFC 6750, naming `users:read`.', 'Bearer realm="users", error="insufficient_scope", scope="users:read"'),
    ...REQUEST_ID,
  },
};

const streamPasswordFor = (scopes: string): Json => ({
  name: 'pwd',
  in: 'query',
  required: false,
  description: `The access password; not needed when a bearer token with ${scopes} is sent.`,
  schema: { type: 'string' },
});

const streamPassword: Record<ProtectedMode, Json> = {
  writes: streamPasswordFor('`events:read`'),
  all: streamPasswordFor('`users:read` or `events:read`'),
};

const streamNote: Record<ProtectedMode, string> = {
  writes: 'The event stream (`GET /api/users/events`) takes `pwd` or a token with `events:read`.',
  all: 'The event stream (`GET /api/users/events`) takes `pwd` or a token with `users:read` or `events:read`.',
};

const note: Record<ProtectedMode, string> = {
  writes:
    '**Bearer tokens (`AUTH=writes`).** Creating, updating or deleting a user needs a token with the scope `users:write` (`Authorization: Bearer <token>`): 401 without a valid token, 403 without the scope. Reading needs none. Use "Authorize" to send a token from this page.',
  all:
    '**Bearer tokens (`AUTH=all`).** Creating, updating or deleting a user needs a token with the scope `users:write` (`Authorization: Bearer <token>`), reading one a token with `users:read`, and the list either `pwd` or a token with `users:read`: 401 without a valid token, 403 without the scope. Use "Authorize" to send a token from this page.',
};

const optionalPassword: Json = {
  name: 'pwd',
  in: 'query',
  required: false,
  description: 'The access password; not needed when a bearer token with `users:read` is sent.',
  schema: { type: 'string' },
};

/**
 * The list's 401 with AUTH=all: without a token it is the contract's refusal of `pwd` (kept as
 * it is, without a challenge); with one, the token alone is judged, so a token that is not valid
 * is answered `Invalid token` with its challenge. Without any credential the answer is still
 * `Invalid password`, never `Authentication required`.
 */
function listUnauthorized(byPassword: Json | undefined): Json {
  const tokenRefused = `With a bearer token, which is then judged alone (\`pwd\` is ignored): a token that is not valid, with the challenge \`WWW-Authenticate: ${invalidTokenChallenge}\`.`;
  const both = structuredClone(byPassword ?? { description: '', content: { 'application/json': { schema: ERROR, examples: {} } } }) as Json & {
    description: string;
    headers?: Json;
    content: Record<string, { examples: Json }>;
  };
  both.description = `${both.description} ${tokenRefused}`.trim();
  const challengeWhenToken = { ...challenge('Only with a bearer token: the challenge of RFC 6750, `error="invalid_token"`.', invalidTokenChallenge), required: false };
  both.headers = { 'WWW-Authenticate': challengeWhenToken, ...(both.headers ?? REQUEST_ID) };
  both.content['application/json']!.examples = { ...both.content['application/json']!.examples, invalidToken };
  return both;
}

function protect(operation: Operation, scope: string): void {
  operation.security = [{ [BEARER_SCHEME]: [scope] }];
  operation.responses['401'] = unauthorized;
  operation.responses['403'] = forbidden;
  sortStatuses(operation.responses);
}
