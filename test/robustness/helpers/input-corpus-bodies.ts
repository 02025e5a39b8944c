import { chunkedUpload, jsonRequest, rawRequest } from '../../helpers/raw-request.js';
import { errors, type CorpusCase } from './input-case.js';

const MAX_BODY_BYTES = 1024 * 1024;
const USERS = '/api/users';
const USER_1 = '/api/users/1';

/** A create body with these fields, as JSON text. */
const fields = (name: unknown, email: unknown): string => JSON.stringify({ name, email });
/** A create body spliced from raw bytes, for the bytes JSON.stringify would never produce. */
const bytes = (...pieces: Array<string | number[]>): Buffer =>
  Buffer.concat(pieces.map((piece) => (typeof piece === 'string' ? Buffer.from(piece, 'utf8') : Buffer.from(piece))));

const post = (tried: string, body: string | Buffer, expect: CorpusCase['expect']): CorpusCase => ({
  group: 'Body',
  tried,
  request: jsonRequest('POST', USERS, body),
  expect,
});
const put = (tried: string, body: string | Buffer, expect: CorpusCase['expect']): CorpusCase => ({
  group: 'Body',
  tried: `PUT of user 1: ${tried}`,
  request: jsonRequest('PUT', USER_1, body),
  expect,
});
const rejected = (error: string, status = 400) => ({ status, error });

/** A valid create body of exactly `size` bytes: the padding goes into a key the service ignores. */
function bodyOfSize(size: number, name: string, email: string): string {
  const frame = JSON.stringify({ name, email, pad: '' });
  return frame.replace('"pad":""', `"pad":"${'x'.repeat(size - Buffer.byteLength(frame))}"`);
}

const emoji100 = '😀'.repeat(100);

export const bodyCases: CorpusCase[] = [
  // Not JSON, or not a JSON object.
  post('invalid JSON (unquoted key)', '{name: "a", email: "b"}', rejected(errors.invalidJson)),
  post('truncated JSON', '{"name":"Trunc","email":"t@example.com"', rejected(errors.invalidJson)),
  post('trailing comma', '{"name":"a","email":"b",}', rejected(errors.invalidJson)),
  post('JSON preceded by a UTF-8 byte order mark', `\ufeff${fields('Bom', 'bom@example.com')}`, rejected(errors.invalidJson)),
  post('empty body with Content-Length: 0', '', rejected(errors.invalidJson)),
  { group: 'Body', tried: 'no body and no Content-Length', request: rawRequest('POST', USERS, { headers: [['Content-Type', 'application/json']] }), expect: rejected(errors.invalidJson) },
  post('`null`', 'null', rejected(errors.notObject)),
  post('an array holding a valid user', `[${fields('Arr', 'arr@example.com')}]`, rejected(errors.notObject)),
  post('a number', '42', rejected(errors.notObject)),
  post('a string', '"name"', rejected(errors.notObject)),
  post('`true`', 'true', rejected(errors.notObject)),
  // Fields of the wrong type or empty.
  post('`name` an object', fields({ first: 'A' }, 'o@example.com'), rejected(errors.notString('name'))),
  post('`email` an object', fields('Obj', { local: 'o' }), rejected(errors.notString('email'))),
  post('`name` an array', fields(['A'], 'a@example.com'), rejected(errors.notString('name'))),
  post('`name` a number', fields(42, 'n@example.com'), rejected(errors.notString('name'))),
  post('`email` a boolean', fields('Bool', true), rejected(errors.notString('email'))),
  post('`name` false', fields(false, 'f@example.com'), rejected(errors.notString('name'))),
  post('`name` null', fields(null, 'null@example.com'), rejected(errors.nameAndEmailRequired)),
  post('`name` empty', fields('', 'e@example.com'), rejected(errors.nameAndEmailRequired)),
  post('`email` only spaces', fields('Spaces', '   '), rejected(errors.nameAndEmailRequired)),
  post('`email` missing', JSON.stringify({ name: 'No Email' }), rejected(errors.nameAndEmailRequired)),
  post('`{}`', '{}', rejected(errors.nameAndEmailRequired)),
  // Keys a parser or a merge could be fooled by.
  post('duplicate `name` key', '{"name":"First","name":"Second","email":"dup@example.com"}', rejected(errors.duplicateKey)),
  post('duplicate key spelled with an escape (`"n\\u0061me"`)', '{"name":"First","n\\u0061me":"Second","email":"d@example.com"}', rejected(errors.duplicateKey)),
  post('duplicate key inside a nested object', '{"name":"N","email":"n@example.com","x":{"a":1,"a":2}}', rejected(errors.duplicateKey)),
  post('`__proto__` key carrying `polluted`', '{"__proto__":{"polluted":"yes"},"name":"Proto","email":"p@example.com"}', rejected(errors.forbiddenKey)),
  post('`__proto__` spelled with escapes', '{"\\u005f\\u005fproto\\u005f\\u005f":{"polluted":"yes"},"name":"P","email":"p@example.com"}', rejected(errors.forbiddenKey)),
  post('`constructor.prototype` carrying `polluted`', '{"constructor":{"prototype":{"polluted":"yes"}},"name":"Ctor","email":"c@example.com"}', rejected(errors.forbiddenKey)),
  post('`__proto__` nested inside `name`', '{"name":{"__proto__":{"polluted":"yes"}},"email":"n@example.com"}', rejected(errors.forbiddenKey)),
  // Lengths.
  post('`name` of 101 characters', fields('n'.repeat(101), 'long@example.com'), rejected(errors.tooLong('name'))),
  post('`email` of 101 characters', fields('Long', `${'e'.repeat(89)}@example.com`), rejected(errors.tooLong('email'))),
  post('`name` of 101 emoji (202 UTF-16 units)', fields('😀'.repeat(101), 'emoji@example.com'), rejected(errors.tooLong('name'))),
  post('`name` of 10 000 characters', fields('n'.repeat(10_000), 'huge@example.com'), rejected(errors.tooLong('name'))),
  post('`email` of 10 000 characters', fields('Huge', 'e'.repeat(10_000)), rejected(errors.tooLong('email'))),
  post('control: `name` of exactly 100 emoji is accepted', fields(emoji100, 'emoji100@example.com'), {
    status: 201,
    creates: { name: emoji100, email: 'emoji100@example.com' },
  }),
  // Bytes that are not UTF-8, and text that is not Unicode.
  post('invalid UTF-8 byte 0xFF in `name`', bytes('{"name":"A', [0xff], '","email":"u@example.com"}'), rejected(errors.notUtf8)),
  post('overlong UTF-8 for "/" (0xC0 0xAF)', bytes('{"name":"', [0xc0, 0xaf], '","email":"u@example.com"}'), rejected(errors.notUtf8)),
  post('UTF-8-encoded surrogate (0xED 0xA0 0x80)', bytes('{"name":"', [0xed, 0xa0, 0x80], '","email":"u@example.com"}'), rejected(errors.notUtf8)),
  post('multi-byte sequence cut short (0xE2 0x82)', bytes('{"name":"', [0xe2, 0x82], '","email":"u@example.com"}'), rejected(errors.notUtf8)),
  post('lone high surrogate `\\ud800` in `name`', '{"name":"A\\ud800","email":"s@example.com"}', rejected(errors.notUnicode('name'))),
  post('lone low surrogate `\\udc00` in `email`', '{"name":"S","email":"s\\udc00@example.com"}', rejected(errors.notUnicode('email'))),
  post('NUL escaped (`\\u0000`) in `name`', '{"name":"A\\u0000B","email":"nul@example.com"}', rejected(errors.controlCharacter('name'))),
  post('raw NUL byte inside the `name` string', bytes('{"name":"A', [0x00], 'B","email":"nul@example.com"}'), rejected(errors.invalidJson)),
  post('NUL byte after the JSON', bytes(fields('Nul', 'nul@example.com'), [0x00]), rejected(errors.invalidJson)),
  post('newline in `name` (log line injection)', fields('A\n{"level":"error"}', 'nl@example.com'), rejected(errors.controlCharacter('name'))),
  post('ANSI escape in `email`', fields('Ansi', '\u001b[31mred@example.com'), rejected(errors.controlCharacter('email'))),
  post('DEL (0x7F) in `name`', fields('Del\u007f', 'del@example.com'), rejected(errors.controlCharacter('name'))),
  // Size limit.
  post('control: a body of exactly 1 MiB is accepted', bodyOfSize(MAX_BODY_BYTES, 'At The Limit', 'limit@example.com'), {
    status: 201,
    creates: { name: 'At The Limit', email: 'limit@example.com' },
  }),
  post('a body one byte over 1 MiB, Content-Length declared', bodyOfSize(MAX_BODY_BYTES + 1, 'Over', 'over@example.com'), {
    ...rejected(errors.tooLarge, 413),
    closes: true,
  }),
  { group: 'Body', tried: 'chunked body that passes 1 MiB midway (1.5 MiB sent in 64 KiB chunks, never ended)', request: chunkedUpload(USERS, 1536 * 1024, 64 * 1024), expect: { ...rejected(errors.tooLarge, 413), closes: true } },
  // Content-Length that lies.
  { group: 'Body', tried: 'Content-Length shorter than the body (the rest is not a request)', request: jsonRequest('POST', USERS, fields('Short', 'short@example.com'), { contentLength: 10 }), expect: { ...rejected(errors.malformed), closes: true } },
  { group: 'Body', tried: 'Content-Length longer than the body, then the client half-closes', request: jsonRequest('POST', USERS, fields('Long', 'long@example.com'), { contentLength: 100, endAfterSend: true }), expect: { ...rejected(errors.malformed), closes: true } },
  // The same checks guard updates: user 1 stays as it was.
  put('invalid JSON', '{"name":', rejected(errors.invalidJson)),
  put('`__proto__` key', '{"__proto__":{"polluted":"yes"},"name":"P","email":"p@example.com"}', rejected(errors.forbiddenKey)),
  put('`name` of 101 characters', fields('n'.repeat(101), 'put@example.com'), rejected(errors.tooLong('name'))),
  put('empty `email`', fields('Put', ''), rejected(errors.nameAndEmailRequired)),
  put('a body one byte over 1 MiB', bodyOfSize(MAX_BODY_BYTES + 1, 'Over', 'over@example.com'), { ...rejected(errors.tooLarge, 413), closes: true }),
];
