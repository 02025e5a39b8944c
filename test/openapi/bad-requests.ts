import { type ApiResponse, portOf, request } from '../helpers/http.js';
import { rawExchange } from '../helpers/raw-exchange.js';
import { literalRequest } from '../helpers/raw-request.js';

type Send = (baseUrl: string) => Promise<ApiResponse>;

export interface BadRequest {
  what: string;
  status: number;
  /** The documented example the answer must equal. */
  example: string;
  send(method: string, path: string): Send;
}

const jsonBody = (body: unknown) => (method: string, path: string): Send => (baseUrl) =>
  request(baseUrl, method, path, { json: body });

const textBody = (body: string, contentType = 'application/json') => (method: string, path: string): Send =>
  (baseUrl) => request(baseUrl, method, path, { body, headers: { 'content-type': contentType } });

/** A request written byte for byte (fetch will not send these); the server closes after answering. */
const rawHead = (extraHeaders: string) => (method: string, path: string): Send => async (baseUrl) => {
  const raw = await rawExchange(portOf(baseUrl), literalRequest(`${method} ${path} HTTP/1.1\r\n${extraHeaders}\r\n\r\n`));
  return { status: raw.status, headers: new Headers(raw.headers), text: raw.text, json: raw.json };
};

/** Bodies create and update refuse, each with the documented example it produces. */
export const badBodies: BadRequest[] = [
  { what: 'email missing', status: 400, example: 'nameAndEmailRequired', send: jsonBody({ name: 'Ada' }) },
  {
    what: 'name whitespace only',
    status: 400,
    example: 'nameAndEmailRequired',
    send: jsonBody({ name: ' \t', email: 'a@b.c' }),
  },
  {
    what: 'name of 101 characters',
    status: 400,
    example: 'nameTooLong',
    send: jsonBody({ name: '😀'.repeat(101), email: 'a@b.c' }),
  },
  { what: 'email not a string', status: 400, example: 'emailNotString', send: jsonBody({ name: 'Ada', email: 5 }) },
  {
    what: 'name with a control character',
    status: 400,
    example: 'controlCharacter',
    send: jsonBody({ name: 'A\u0007', email: 'a@b.c' }),
  },
  { what: 'body not valid JSON', status: 400, example: 'invalidJson', send: textBody('{"name":') },
  { what: 'body a JSON array', status: 400, example: 'notAnObject', send: textBody('[]') },
  {
    what: 'a key given twice',
    status: 400,
    example: 'duplicateKey',
    send: textBody('{"name":"A","name":"B","email":"a@b.c"}'),
  },
  {
    what: 'a __proto__ key',
    status: 400,
    example: 'forbiddenKey',
    send: textBody('{"__proto__":{},"name":"A","email":"a@b.c"}'),
  },
  {
    what: 'Content-Type text/plain',
    status: 415,
    example: 'unsupportedMediaType',
    send: textBody('{"name":"Ada","email":"a@b.c"}', 'text/plain'),
  },
  {
    what: 'a declared 2 MiB body (refused before it is read)',
    status: 413,
    example: 'bodyTooLarge',
    send: rawHead(`Host: test\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}`),
  },
];

/** Requests the server refuses before routing, whatever the operation. */
export const refusedRequests: BadRequest[] = [
  {
    what: 'with 17 KiB of headers',
    status: 431,
    example: 'headersTooLarge',
    send: rawHead(`Host: test\r\nX-Filler: ${'x'.repeat(17 * 1024)}`),
  },
  { what: 'with a malformed header line', status: 400, example: 'malformed', send: rawHead('Host: test\r\nNo colon') },
  { what: 'over HTTP/1.1 without Host', status: 400, example: 'hostRequired', send: rawHead('Connection: close') },
  {
    what: 'with an unsupported Expect',
    status: 417,
    example: 'expectationFailed',
    send: rawHead('Host: test\r\nConnection: close\r\nExpect: 200-ok'),
  },
];
