/** How an HttpError's body is written: `{"error": …}` (the contract), `{"message": …}` or plain text (older variants). */
export type ErrorBodyShape = 'error' | 'message' | 'text';

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * A refusal, thrown wherever it is decided and answered by src/http/answer-error.ts: its status,
 * body, content type and headers are safe to show the client as they are.
 */
export class HttpError extends Error {
  /** The serialised body. */
  readonly body: string;
  readonly contentType: 'json' | 'text';

  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = NO_HEADERS,
    shape: ErrorBodyShape = 'error',
  ) {
    super(message);
    this.name = 'HttpError';
    this.body = shape === 'text' ? message : shape === 'error' ? JSON.stringify({ error: message }) : JSON.stringify({ message });
    this.contentType = shape === 'text' ? 'text' : 'json';
  }
}
