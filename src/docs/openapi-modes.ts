import type { ApiCompat, RateLimitSettings } from '../config/environment.js';
import { messages } from '../errors/messages.js';
import { describeAuth, type ProtectedMode } from './openapi-auth.js';
import { describeRateLimit } from './openapi-rate-limit.js';
import { sortStatuses } from './sort-statuses.js';

type Json = Record<string, unknown>;

const MESSAGE = { $ref: '#/components/schemas/Message' };
const WRONG_PASSWORD_MATE = messages.wrongPasswordMate;
const userNotFoundMessage = { userNotFound: { summary: 'Unknown id', value: { message: messages.userNotFound } } };

const notes: Record<Exclude<ApiCompat, 'contract'>, string> = {
  earlier:
    `a wrong, missing or repeated \`pwd\` on the list is answered 200 with the plain-text body \`${WRONG_PASSWORD_MATE}\`; ` +
    'reading a missing user 500 `{"message": "User not found"}`; deleting one 404 `{"message": "User not found"}`',
  fastapi:
    `a wrong, missing or repeated \`pwd\` on the list is answered 403 \`{"message": "${WRONG_PASSWORD_MATE}"}\`; ` +
    'reading or deleting a missing user 404 `{"message": "User not found"}`',
};

/** How a running service is configured, where that changes its API description. */
export interface ServedSettings {
  mode: ApiCompat;
  /** METRICS=on without METRICS_PORT: `/metrics` is served on the API's port. */
  metricsOnApiPort: boolean;
  auth?: ProtectedMode;
  rateLimit?: RateLimitSettings;
  /** EVENTS=on: the event stream and the webhooks' payloads are described. */
  events?: boolean;
}

/**
 * The description a running service serves: its API_COMPAT mode's (see describeMode), with its
 * bearer tokens when AUTH is on (see describeAuth), its rate limit when RATE_LIMIT is on (see
 * describeRateLimit), the event stream and webhooks only with EVENTS on, and `/metrics` only when
 * this server answers it there.
 */
export function describeService(contract: Json, { mode, metricsOnApiPort, auth, rateLimit, events = false }: ServedSettings): Json {
  let doc = events ? describeMode(contract, mode) : withoutEvents(describeMode(contract, mode), contract);
  if (auth !== undefined) doc = describeAuth(doc, auth);
  if (rateLimit !== undefined) doc = describeRateLimit(doc, rateLimit);
  if (metricsOnApiPort) return doc;
  const served = (doc === contract ? structuredClone(contract) : doc) as Json & { paths: Json; tags?: Array<{ name: string }> };
  delete served.paths['/metrics'];
  if (served.tags) served.tags = served.tags.filter((tag) => tag.name !== METRICS_TAG);
  return served;
}

const METRICS_TAG = 'operations';

/** A server with EVENTS off serves no event stream, no webhook endpoints and sends no webhooks: none is described. */
function withoutEvents(doc: Json, contract: Json): Json {
  const served = (doc === contract ? structuredClone(contract) : doc) as Json & {
    paths: Json;
    webhooks?: Json;
    tags?: Array<{ name: string }>;
    components: { schemas: Json; parameters: Json; responses: Json };
  };
  delete served.paths['/api/users/events'];
  delete served.webhooks;
  delete served.components.schemas.UserEvent;
  delete served.components.parameters.EventsAfter;
  delete served.components.parameters.EventTypes;
  delete served.components.parameters.LastEventId;
  for (const path of Object.keys(served.paths)) if (path.startsWith(WEBHOOK_ENDPOINTS)) delete served.paths[path];
  for (const group of [served.components.schemas, served.components.parameters, served.components.responses]) {
    for (const name of Object.keys(group)) if (name.includes('Webhook')) delete group[name];
  }
  if (served.tags) served.tags = served.tags.filter((tag) => tag.name !== WEBHOOKS_TAG);
  return served;
}

/** Where integrators manage their webhook endpoints (EVENTS=on only), and the tag of those operations. */
export const WEBHOOK_ENDPOINTS = '/api/webhooks/endpoints';
const WEBHOOKS_TAG = 'webhooks';

/**
 * The API description of the service as it runs: openapi.json describes the contract, and an
 * API_COMPAT mode changes exactly the answers it changes in the server, so the docs page and
 * generated clients agree with what the server does.
 */
export function describeMode(contract: Json, mode: ApiCompat): Json {
  if (mode === 'contract') return contract;
  const doc = structuredClone(contract) as Json & { info: Json; paths: Record<string, Record<string, { responses: Json }>> };
  doc.info.description = `${String(doc.info.description)}\n\n**Compatibility mode \`${mode}\`.** This server runs with \`API_COMPAT=${mode}\`, answering as an older implementation did: ${notes[mode]}. Everything else is as this page describes.`;
  const list = doc.paths['/api/users']!.get!.responses;
  const read = doc.paths['/api/users/{id}']!.get!.responses;
  const remove = doc.paths['/api/users/{id}']!.delete!.responses;
  delete list['401'];
  delete read['404'];
  remove['404'] = messageResponse('No user has this id.', userNotFoundMessage);
  if (mode === 'earlier') {
    const ok = list['200'] as { description: string; content: Json };
    ok.description += ` A wrong, missing or repeated \`pwd\` is also answered 200, with the plain-text body \`${WRONG_PASSWORD_MATE}\`.`;
    ok.content['text/plain'] = {
      schema: { type: 'string', const: WRONG_PASSWORD_MATE },
      examples: { wrongPassword: { summary: 'Wrong or missing password', value: WRONG_PASSWORD_MATE } },
    };
    read['500'] = {
      description: 'No user has this id (`message`), or the database failed (`error`; the details go to the server log).',
      content: {
        'application/json': {
          schema: { oneOf: [{ $ref: '#/components/schemas/Error' }, MESSAGE] },
          examples: {
            ...userNotFoundMessage,
            databaseError: { summary: 'Database failure', value: { error: 'Database error' } },
            internalError: { summary: 'Other unexpected failure', value: { error: 'Internal server error' } },
          },
        },
      },
    };
  } else {
    list['403'] = messageResponse('`pwd` is missing, wrong, or given more than once.', {
      wrongPassword: { summary: 'Wrong or missing password', value: { message: WRONG_PASSWORD_MATE } },
    });
    read['404'] = messageResponse('No user has this id.', userNotFoundMessage);
  }
  for (const responses of [list, read, remove]) sortStatuses(responses);
  return doc;
}

function messageResponse(description: string, examples: Json): Json {
  return { description, content: { 'application/json': { schema: MESSAGE, examples } } };
}
