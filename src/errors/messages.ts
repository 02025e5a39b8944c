/**
 * Every message the service shows a client, in one place: what each answer says is reviewed here,
 * and none reveals a stack, SQL, a path or a version.
 */
export const messages = {
  notFound: 'Not found',
  userNotFound: 'User not found',
  nameAndEmailRequired: 'Name and email required',
  nameOrEmailRequired: 'Name or email required',
  /** VALIDATE_EMAIL=on: the email does not look like one. */
  invalidEmail: 'email must be a valid email address',
  /** UNIQUE_EMAIL=on: another user has the email (compared case-insensitively). */
  emailInUse: 'Email already in use',
  preconditionFailed: 'The user has changed: If-Match does not match its ETag',
  invalidPassword: 'Invalid password',
  /** The `earlier` and `fastapi` modes' answer to a wrong list password. */
  wrongPasswordMate: 'Wrong password mate',
  tooManyFailures: 'Too many failed attempts',
  /** RATE_LIMIT: the client's allowance for this window is spent. */
  tooManyRequests: 'Too many requests',
  /** AUTH=writes or all: no bearer token (or another scheme than Bearer) where one is needed. */
  authenticationRequired: 'Authentication required',
  /** A bearer token that is not valid: unknown, revoked, expired, badly signed, ... (the reason goes to the log only). */
  invalidToken: 'Invalid token',
  /** A valid bearer token without the scope the operation needs. */
  insufficientScope: 'Insufficient scope',
  invalidJson: 'Invalid JSON body',
  bodyNotObject: 'Request body must be a JSON object',
  bodyNotUtf8: 'Request body is not valid UTF-8',
  duplicateKey: 'Request body repeats a key within one object',
  forbiddenKey: 'Request body uses a forbidden key (__proto__, constructor or prototype)',
  bodyTooLarge: 'Request body too large (limit 1 MiB)',
  unsupportedMediaType: 'Content-Type must be application/json',
  methodNotAllowed: 'Method not allowed',
  malformedRequest: 'Malformed HTTP request',
  requestTimeout: 'Request timed out',
  headersTooLarge: 'Request headers too large',
  busy: 'Service busy, retry shortly',
  /** An API request before every migration the settings need is applied (the database away at start included). */
  starting: 'Service starting, retry shortly',
  hostRequired: 'Host header required',
  expectationFailed: 'Expect header not supported',
  databaseUnavailable: 'Database unavailable',
  /** `/readyz` once SIGTERM or SIGINT arrived: load balancers take the instance out while it still serves. */
  shuttingDown: 'Shutting down',
  storage: 'Database error',
  internal: 'Internal server error',
  afterWithoutLimit: 'after requires limit',
  afterNotInteger: 'after must be a non-negative integer',
  cursorWithoutLimit: 'cursor requires limit',
  afterWithCursor: 'after and cursor cannot be combined',
  afterNeedsIdSort: 'after applies to sort=id only: follow the Link header, which carries a cursor',
  invalidCursor: 'cursor is not valid for this list: follow the Link header of the page before',
  /** EVENTS=on: the stream's resume point, as EventSource sends it on reconnecting. */
  lastEventIdNotInteger: 'Last-Event-ID must be a non-negative integer',
  /** EVENTS=on: resuming from before the events already pruned (streamMessages.gone adds where to resume). */
  eventsGone: 'Events after this id are no longer kept',
  /** EVENTS=on: the stream's `types` is empty, or names something other than an event type. */
  eventTypesInvalid: 'types must be a comma-separated list of event types: user.created, user.updated, user.deleted',
  /** IDEMPOTENCY=on: an Idempotency-Key that is empty, longer than 255 characters, or not visible ASCII. */
  invalidIdempotencyKey: 'Idempotency-Key must be 1-255 visible ASCII characters',
  /** IDEMPOTENCY=on: the key's first request is still being answered. */
  idempotencyKeyInFlight: 'A request with this Idempotency-Key is still in progress',
  /** IDEMPOTENCY=on: the key was first used with another body. */
  idempotencyKeyReused: 'Idempotency-Key already used with a different request body',
  userCreated: 'User created successfully',
  userUpdated: 'User updated successfully',
  userDeleted: 'User deleted successfully',
} as const;

/** Messages that name the field or parameter at fault. */
export const fieldMessages = {
  empty: (field: string) => `${field} must not be empty`,
  notString: (field: string) => `${field} must be a string`,
  tooLong: (field: string, max: number) => `${field} must be at most ${max} characters`,
  notUnicode: (field: string) => `${field} must be valid Unicode text`,
  controlCharacters: (field: string) => `${field} must not contain control characters`,
  limitRange: (max: number) => `limit must be an integer from 1 to ${max}`,
  lengthRange: (parameter: string, max: number) => `${parameter} must be 1 to ${max} characters`,
  repeated: (parameter: string) => `${parameter} must be given at most once`,
  sortField: (fields: readonly string[]) => `sort must be one of ${fields.join(', ')}, or one of them after - for descending order`,
} as const;

/** The longest part of a client's own text an answer quotes back. */
const QUOTED_MAX = 40;

/** A client's text as an answer quotes it: whole characters, at most QUOTED_MAX of them. */
function quoted(text: string): string {
  const characters = [...text];
  return characters.length > QUOTED_MAX ? `${characters.slice(0, QUOTED_MAX).join('')}…` : text;
}

/** The event stream's messages that carry a value. */
export const streamMessages = {
  /**
   * Resuming from before the events already pruned: the client reads the current state again, then
   * resumes after the last id pruned (every event after it is kept, once it exists).
   */
  gone: (prunedThrough: number, lastId: number) =>
    lastId > prunedThrough
      ? `${messages.eventsGone}: the oldest event still kept is ${prunedThrough + 1}; read the current state again, then resume from after=${prunedThrough}`
      : `${messages.eventsGone}, and no event is kept now: read the current state again, then resume from after=${prunedThrough}`,
  /** A query parameter the stream does not take, named (cut to 40 characters), with those it takes. */
  unknownParameter: (name: string, known: readonly string[]) => `unknown query parameter "${quoted(name)}": the stream takes ${known.join(', ')}`,
} as const;
