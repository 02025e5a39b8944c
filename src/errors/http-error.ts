/** An error whose status and message are safe to show to the client as they are. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const messages = {
  notFound: 'Not found',
  userNotFound: 'User not found',
  nameAndEmailRequired: 'Name and email required',
  nameOrEmailRequired: 'Name or email required',
  preconditionFailed: 'The user has changed: If-Match does not match its ETag',
  invalidPassword: 'Invalid password',
  /** The older variants' answer to a wrong list password (spec section 7.2). */
  wrongPasswordMate: 'Wrong password mate',
  tooManyFailures: 'Too many failed attempts',
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
  hostRequired: 'Host header required',
  expectationFailed: 'Expect header not supported',
  storage: 'Database error',
  internal: 'Internal server error',
} as const;
