import { rawRequest } from '../../helpers/raw-request.js';
import { errors, type CorpusCase } from './input-case.js';

const USERS = '/api/users';
const USER_1 = '/api/users/1';
const body = JSON.stringify({ name: 'Header Case', email: 'header-case@example.com' });

const withType = (tried: string, contentType: string | undefined, expect: CorpusCase['expect'], target = USERS, method = 'POST'): CorpusCase => ({
  group: 'Header',
  tried,
  request: rawRequest(method, target, { headers: contentType === undefined ? [] : [['Content-Type', contentType]], body }),
  expect,
});
const unsupported = { status: 415, error: errors.unsupportedMediaType };
const accepted = (email: string): CorpusCase['expect'] => ({ status: 201, creates: { name: 'Header Case', email } });

/** The same create, with a distinct email so each accepted control stores a row of its own. */
const acceptedCharset = (contentType: string, email: string): CorpusCase => ({
  group: 'Header',
  tried: `control: \`${contentType}\` is accepted`,
  request: rawRequest('POST', USERS, {
    headers: [['Content-Type', contentType]],
    body: JSON.stringify({ name: 'Header Case', email }),
  }),
  expect: accepted(email),
});

const raw = (tried: string, text: string, expect: CorpusCase['expect']): CorpusCase => ({
  group: 'Header',
  tried,
  request: { parts: [Buffer.from(text, 'latin1')] },
  expect,
});
const malformed = { status: 400, error: errors.malformed, closes: true };
const methodNotAllowed = (allow: string) => ({ status: 405, error: errors.methodNotAllowed, allow });
const USERS_ALLOW = 'GET, HEAD, POST, OPTIONS';
const USER_ALLOW = 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS';

export const headerCases: CorpusCase[] = [
  // Content-Type.
  withType('no Content-Type', undefined, unsupported),
  withType('`text/plain`', 'text/plain', unsupported),
  withType('`application/x-www-form-urlencoded`', 'application/x-www-form-urlencoded', unsupported),
  withType('`multipart/form-data`', 'multipart/form-data; boundary=xyz', unsupported),
  withType('`text/json`', 'text/json', unsupported),
  withType('`application/jsonp`', 'application/jsonp', unsupported),
  withType('`application/json; charset=iso-8859-1`', 'application/json; charset=iso-8859-1', unsupported),
  withType('`application/json; charset=utf-16`', 'application/json; charset=utf-16', unsupported),
  withType('update with `text/plain`', 'text/plain', unsupported, USER_1, 'PUT'),
  acceptedCharset('application/json; charset=UTF-8', 'charset-upper@example.com'),
  acceptedCharset('application/json;charset="utf-8"', 'charset-quoted@example.com'),
  acceptedCharset('application/json; charset=utf8', 'charset-nodash@example.com'),
  // Size of the header block.
  { group: 'Header', tried: 'one header of 20 000 bytes', request: rawRequest('GET', USER_1, { headers: [['X-Big', 'a'.repeat(20_000)]] }), expect: { status: 431, error: errors.headersTooLarge, closes: true } },
  { group: 'Header', tried: '3 000 small headers', request: rawRequest('GET', USER_1, { headers: Array.from({ length: 3000 }, (_, i) => [`X-H${i}`, 'v'] as const) }), expect: { status: 431, error: errors.headersTooLarge, closes: true } },
  // Methods.
  { group: 'Header', tried: 'PATCH on the collection', request: rawRequest('PATCH', USERS, { headers: [['Content-Type', 'application/json']], body }), expect: methodNotAllowed(USERS_ALLOW) },
  { group: 'Header', tried: 'DELETE on the collection', request: rawRequest('DELETE', USERS), expect: methodNotAllowed(USERS_ALLOW) },
  { group: 'Header', tried: 'PUT on the collection', request: rawRequest('PUT', USERS, { headers: [['Content-Type', 'application/json']], body }), expect: methodNotAllowed(USERS_ALLOW) },
  { group: 'Header', tried: 'POST on one user', request: rawRequest('POST', USER_1, { headers: [['Content-Type', 'application/json']], body }), expect: methodNotAllowed(USER_ALLOW) },
  { group: 'Header', tried: 'TRACE', request: rawRequest('TRACE', USERS), expect: methodNotAllowed(USERS_ALLOW) },
  { group: 'Header', tried: 'PROPFIND (WebDAV)', request: rawRequest('PROPFIND', USER_1), expect: methodNotAllowed(USER_ALLOW) },
  { group: 'Header', tried: 'CONNECT', request: rawRequest('CONNECT', '127.0.0.1:3306'), expect: { status: 405, error: errors.methodNotAllowed, closes: true } },
  { group: 'Header', tried: 'a method no HTTP parser knows (`FOO`)', request: rawRequest('FOO', USERS), expect: malformed },
  { group: 'Header', tried: 'a lower-case method (`get`)', request: rawRequest('get', USER_1), expect: malformed },
  // HEAD: served like GET, without a body.
  { group: 'Header', tried: 'HEAD on the list without a password', request: rawRequest('HEAD', USERS), expect: { status: 401 } },
  { group: 'Header', tried: 'HEAD on a user that does not exist', request: rawRequest('HEAD', '/api/users/424242'), expect: { status: 404 } },
  { group: 'Header', tried: 'HEAD on a non-integer id', request: rawRequest('HEAD', '/api/users/abc'), expect: { status: 404 } },
  // Framing and syntax the HTTP parser refuses.
  { group: 'Header', tried: 'no Host header (HTTP/1.1)', request: rawRequest('GET', USER_1, { host: false }), expect: { status: 400, error: errors.hostRequired, closes: true } },
  { group: 'Header', tried: 'an Expect the server does not know', request: rawRequest('POST', USERS, { headers: [['Content-Type', 'application/json'], ['Expect', 'teapot']], body }), expect: { status: 417, error: errors.expectationFailed } },
  { group: 'Header', tried: 'Content-Length and Transfer-Encoding together (smuggling)', request: rawRequest('POST', USERS, { headers: [['Content-Type', 'application/json'], ['Transfer-Encoding', 'chunked']], body: `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n` }), expect: malformed },
  raw('two different Content-Length headers', `POST ${USERS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: ${body.length}\r\n\r\n${body}`, malformed),
  raw('a Content-Length that is not a number', `POST ${USERS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n${body}`, malformed),
  raw('a negative Content-Length', `POST ${USERS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n${body}`, malformed),
  raw('Transfer-Encoding other than chunked', `POST ${USERS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n${body}`, malformed),
  raw('a NUL byte in a header value', `GET ${USER_1} HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n`, malformed),
  raw('a bare LF inside a header line', `GET ${USER_1} HTTP/1.1\r\nHost: x\r\nX-A: a\nX-B: b\r\n\r\n`, malformed),
  raw('a folded (obs-fold) header', `GET ${USER_1} HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n`, malformed),
  raw('a header line without a colon', `GET ${USER_1} HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`, malformed),
  raw('a space inside the request target', `GET /api/users/1 2 HTTP/1.1\r\nHost: x\r\n\r\n`, malformed),
  raw('a raw non-ASCII byte in the path', `GET /api/users/\xe9 HTTP/1.1\r\nHost: x\r\n\r\n`, malformed),
  raw('a TLS ClientHello sent to the plain-HTTP port', '\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03', malformed),
  raw('the HTTP/2 connection preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', malformed),
];
