import type { RateLimitSettings } from '../config/environment.js';
import { messages } from '../errors/messages.js';
import { sortStatuses } from './sort-statuses.js';

type Json = Record<string, unknown>;
type Response = Json & { headers?: Json; content?: Record<string, { schema?: Json; examples?: Json }> };
type Operation = Json & { responses: Record<string, Response | { $ref: string }> };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * The description of a server with RATE_LIMIT on: every `/api` operation's answers carry the
 * RateLimit headers, and each may be refused 429 once its client has spent the window's requests.
 */
export function describeRateLimit(source: Json, limit: RateLimitSettings): Json {
  const doc = structuredClone(source) as Json & { info: Json; components: Json & { headers: Json }; paths: Record<string, Record<string, Operation>> };
  doc.components.headers.RateLimitPolicy = {
    description: `The limit (draft-ietf-httpapi-ratelimit-headers): \`q\` requests per \`w\` seconds for each client; here ${limit.requests} per ${limit.windowSeconds} s.`,
    schema: { type: 'string', example: `"default";q=${limit.requests};w=${limit.windowSeconds}` },
    required: true,
  };
  doc.components.headers.RateLimit = {
    description: 'What is left of this client\'s window: `r` requests, for `t` more seconds.',
    schema: { type: 'string', example: `"default";r=${limit.requests - 1};t=${limit.windowSeconds}` },
    required: true,
  };
  const rateHeaders = { 'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' }, RateLimit: { $ref: '#/components/headers/RateLimit' } };
  doc.info.description = `${String(doc.info.description)}\n\n${note(limit)}`;
  const shared = new Set<Response>();
  const components = doc.components.responses as Record<string, Response>;
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/api/')) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      // The catch-all 4XX is shared with the paths the limit does not apply to.
      for (const [status, response] of Object.entries(operation.responses)) {
        if (status === '4XX') continue;
        if ('$ref' in response) shared.add(components[(response.$ref as string).split('/').pop()!]!);
        else response.headers = { ...response.headers, ...rateHeaders };
      }
      operation.responses['429'] = refused(operation.responses['429'] as Response | undefined, rateHeaders);
      sortStatuses(operation.responses);
    }
  }
  for (const response of shared) response.headers = { ...response.headers, ...rateHeaders };
  return doc;
}

const tooManyRequests = { summary: 'Rate limit reached', value: { error: messages.tooManyRequests } };

/** The 429 of the rate limit; the list's, which already refuses a guessing address, names both causes. */
function refused(existing: Response | undefined, rateHeaders: Json): Response {
  const retryAfter = { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 }, required: true };
  if (!existing) {
    return {
      description: 'This client has spent its requests for the window (`RATE_LIMIT`); retry after `Retry-After` seconds.',
      headers: { 'Retry-After': retryAfter, ...rateHeaders, 'X-Request-Id': { $ref: '#/components/headers/RequestId' } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, examples: { tooManyRequests } } },
    };
  }
  const both = structuredClone(existing);
  both.description = `${String(both.description)} Also: this client has spent its requests for the window (\`RATE_LIMIT\`), with the RateLimit headers.`;
  const examples = both.content?.['application/json']?.examples;
  if (examples) examples.tooManyRequests = tooManyRequests;
  return both;
}

function note(limit: RateLimitSettings): string {
  return (
    `**Rate limit (\`RATE_LIMIT\`).** Each client (its address, or the key or subject of its bearer token) may send ${limit.requests} API requests per ${limit.windowSeconds} s window. ` +
    'Every `/api` answer carries `RateLimit-Policy` and `RateLimit` (what is left, and for how long); past the limit the answer is 429 `{"error": "Too many requests"}` with `Retry-After`.'
  );
}
