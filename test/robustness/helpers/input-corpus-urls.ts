import { TEST_PASSWORD } from '../../helpers/service.js';
import { jsonRequest, rawRequest } from '../../helpers/raw-request.js';
import { errors, type CorpusCase } from './input-case.js';

const validBody = JSON.stringify({ name: 'Not Stored', email: 'not-stored@example.com' });

/** Segments that are not a canonical decimal id: no route matches them, whatever the method. */
const nonIdSegments: ReadonlyArray<readonly [string, string]> = [
  ['abc', 'letters'],
  ['1.5', 'a decimal fraction'],
  ['-1', 'a negative number'],
  ['0x10', 'hexadecimal'],
  ['1e3', 'exponent notation'],
  ['%31', 'a percent-encoded digit'],
  ['', 'an empty segment'],
  ['1/', 'a trailing slash'],
  ['01', 'a leading zero'],
  ['+1', 'a plus sign'],
  ['1%20', 'a trailing encoded space'],
  ['%EF%BC%91', 'a full-width digit one'],
  ['1;DROP%20TABLE%20users', 'SQL after the id'],
];

/** Ids that are numbers but name no row: beyond the INT column, or beyond what a double holds exactly. */
const outOfRangeIds: ReadonlyArray<readonly [string, string]> = [
  ['2147483648', '2^31, one past the INT column'],
  ['9223372036854775808', '2^63'],
  ['18446744073709551616', '2^64'],
  ['1'.repeat(40), 'forty digits'],
];

function everyMethod(segment: string, what: string, error: string): CorpusCase[] {
  const path = `/api/users/${segment}`;
  return [
    { group: 'URL', tried: `id ${what}, read`, request: rawRequest('GET', path), expect: { status: 404, error } },
    { group: 'URL', tried: `id ${what}, update`, request: jsonRequest('PUT', path, validBody), expect: { status: 404, error } },
    { group: 'URL', tried: `id ${what}, delete`, request: rawRequest('DELETE', path), expect: { status: 404, error } },
  ];
}

const traversals: ReadonlyArray<readonly [string, string]> = [
  ['/apidocs/../package.json', '`..` out of the docs folder'],
  ['/apidocs/../../../../etc/passwd', '`..` to the file system root'],
  ['/apidocs/..%2fpackage.json', 'encoded slash `..%2f`'],
  ['/apidocs/%2e%2e/package.json', 'encoded dots `%2e%2e/`'],
  ['/apidocs/%2e%2e%2f%2e%2e%2fpackage.json', 'everything encoded'],
  ['/apidocs/%252e%252e%252fpackage.json', 'double-encoded'],
  ['/apidocs/..%5c..%5cpackage.json', 'encoded backslashes'],
  ['/apidocs/swagger-ui.css/../../package.json', '`..` after a real asset'],
  ['/apidocs//etc/passwd', 'an absolute path after the folder'],
  ['/apidocs/swagger-ui.css%00.html', 'an encoded NUL after a real asset'],
  ['/apidocs/.', 'a lone dot'],
];

const P = TEST_PASSWORD;
/** Ways to send a password that is not exactly one `pwd` equal to the configured one. */
const passwordTries: ReadonlyArray<readonly [string, string]> = [
  ['', 'no query at all'],
  ['?pwd=', 'an empty `pwd`'],
  ['?pwd', '`pwd` without `=`'],
  ['?pwd=a&pwd=b', 'two different `pwd`'],
  [`?pwd=${P}&pwd=${P}`, 'the right password twice'],
  [`?pwd=${P}&pwd=`, 'the right password, then an empty one'],
  [`?pwd[]=${P}`, 'array syntax `pwd[]`'],
  [`?pwd[0]=${P}`, 'indexed syntax `pwd[0]`'],
  [`?PWD=${P}`, 'the key in upper case'],
  [`?Pwd=${P}`, 'the key capitalised'],
  [`?pwd=${P.toUpperCase()}`, 'the password in another case'],
  [`?pwd=${P.slice(0, -1)}`, 'a prefix of the password'],
  [`?pwd=${P}x`, 'the password plus one character'],
  [`?pwd=${P}%00`, 'the password plus a NUL'],
  [`?pwd=+${P}`, 'the password after a space'],
  ['?pwd=%zz', 'a malformed percent escape'],
  ["?pwd='%20OR%20'1'='1", 'SQL injection'],
];

export const urlCases: CorpusCase[] = [
  ...nonIdSegments.flatMap(([segment, what]) => everyMethod(segment, what, errors.notFound)),
  ...outOfRangeIds.flatMap(([segment, what]) => everyMethod(segment, what, errors.userNotFound)),
  { group: 'URL', tried: 'a path of 8 000 characters', request: rawRequest('GET', `/api/users/${'a'.repeat(8000)}`), expect: { status: 404, error: errors.notFound } },
  { group: 'URL', tried: 'a path of 20 000 characters (beyond the 16 KiB header limit)', request: rawRequest('GET', `/api/users/${'a'.repeat(20_000)}`), expect: { status: 431, error: errors.headersTooLarge, closes: true } },
  ...traversals.map(([target, what]): CorpusCase => ({
    group: 'URL',
    tried: `docs traversal: ${what}`,
    request: rawRequest('GET', target),
    expect: { status: 404, error: errors.notFound },
  })),
  ...passwordTries.map(([query, what]): CorpusCase => ({
    group: 'URL',
    tried: `list with ${what}`,
    request: rawRequest('GET', `/api/users${query}`),
    expect: { status: 401, error: errors.invalidPassword },
  })),
];
