import type { RawRequest } from '../../helpers/raw-request.js';

export type CaseGroup = 'Body' | 'URL' | 'Header';

/** What the service must answer to one corpus request. */
export interface Expected {
  status: number;
  /** The exact `error` of the JSON body; absent for an accepted request or a HEAD. */
  error?: string;
  /** The request is accepted and stores exactly this user (a control at the edge of a limit). */
  creates?: { name: string; email: string };
  /** The server answers with `Connection: close` (it will not read what the client may still send). */
  closes?: boolean;
  /** The `Allow` header of a 405. */
  allow?: string;
}

/** One row of the bad-input corpus: the exact bytes sent, and the answer they must get. */
export interface CorpusCase {
  group: CaseGroup;
  /** What is tried, in words; it names the test and the row in docs/robustness.md. */
  tried: string;
  request: RawRequest;
  expect: Expected;
}

/** The rejection messages, spelled out here so that a changed message is a visible change to the contract. */
export const errors = {
  nameAndEmailRequired: 'Name and email required',
  userNotFound: 'User not found',
  invalidPassword: 'Invalid password',
  notFound: 'Not found',
  invalidJson: 'Invalid JSON body',
  notObject: 'Request body must be a JSON object',
  notUtf8: 'Request body is not valid UTF-8',
  duplicateKey: 'Request body repeats a key within one object',
  forbiddenKey: 'Request body uses a forbidden key (__proto__, constructor or prototype)',
  tooLarge: 'Request body too large (limit 1 MiB)',
  unsupportedMediaType: 'Content-Type must be application/json',
  methodNotAllowed: 'Method not allowed',
  malformed: 'Malformed HTTP request',
  headersTooLarge: 'Request headers too large',
  hostRequired: 'Host header required',
  expectationFailed: 'Expect header not supported',
  notString: (field: string) => `${field} must be a string`,
  tooLong: (field: string) => `${field} must be at most 100 characters`,
  notUnicode: (field: string) => `${field} must be valid Unicode text`,
  controlCharacter: (field: string) => `${field} must not contain control characters`,
} as const;

/** The request line of a case, as the docs table shows it (long targets shortened). */
export function requestLine(request: RawRequest): string {
  const first = request.parts[0]!;
  const end = first.indexOf('\r\n');
  const line = first.subarray(0, end === -1 ? Math.min(first.length, 40) : end).toString('latin1');
  const printable = line.replace(/[^\x20-\x7e]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  const withoutVersion = printable.replace(/ HTTP\/1\.1$/, '');
  return withoutVersion.length > 70 ? `${withoutVersion.slice(0, 50)}… (${withoutVersion.length} chars)` : withoutVersion;
}
