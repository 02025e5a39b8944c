import assert from 'node:assert/strict';

/** What an answer must never show a client: how the service is built or what it runs on. */
const revealing: ReadonlyArray<readonly [string, RegExp]> = [
  ['a stack frame', /\bat [\w.<>]+ \(|\n\s+at /],
  ['an exception class', /\b[A-Z]\w*(Error|Exception)\b/],
  ['a source file', /\.(ts|js|mjs|cjs|sql)\b(:\d+)?/],
  ['a file system path', /(^|[\s"'(=])(\/(work|home|usr|src|app|node_modules|tmp|root|etc|var|opt)\/|[A-Z]:\\)/],
  ['SQL', /\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|WHERE|VALUES\s*\(|ER_[A-Z_]+|SQLSTATE|sqlMessage|syntax to use near)\b/i],
  ['a product name', /\b(mysql2?|mariadb|node\.?js|express|swagger-ui-dist|tsx)\b/i],
  ['a version number', /\bv?\d+\.\d+\.\d+\b/],
];

/** Headers that advertise the software behind a server. */
const advertisingHeaders = ['x-powered-by', 'server', 'x-aspnet-version', 'x-runtime', 'via'];

/**
 * Fails when an error response shows a stack trace, SQL, a file path, a product or version, or any
 * of `secrets` (the access password, say). Headers are searched too, except Allow (it lists DELETE).
 */
export function assertRevealsNothing(
  response: { status: number; text: string; headers: Record<string, string> },
  secrets: ReadonlyArray<string> = [],
): void {
  for (const name of advertisingHeaders) {
    assert.equal(response.headers[name], undefined, `${response.status} answer carries ${name}: ${response.headers[name]}`);
  }
  const headerText = Object.entries(response.headers)
    .filter(([name]) => name !== 'allow' && name !== 'date')
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
  for (const [what, pattern] of revealing) {
    assert.doesNotMatch(response.text, pattern, `${response.status} body reveals ${what}: ${response.text.slice(0, 300)}`);
    if (what !== 'SQL') assert.doesNotMatch(headerText, pattern, `${response.status} headers reveal ${what}: ${headerText}`);
  }
  for (const secret of secrets) {
    assert.ok(!response.text.includes(secret), `${response.status} body echoes a secret`);
    assert.ok(!headerText.includes(secret), `${response.status} headers echo a secret`);
  }
}
