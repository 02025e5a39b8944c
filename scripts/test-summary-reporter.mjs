/**
 * A reporter for Node's test runner, beside the usual TAP on stdout: the run's last lines, written
 * to its destination, say which tests failed and which files took longest, so that the end of a
 * long log (all a CI page may show) tells what went wrong. Plain JavaScript: the runner loads its
 * reporters before tsx can compile them.
 */
const SLOWEST_SHOWN = 5;

/** @param {AsyncIterable<{ type: string, data: any }>} source */
export default async function* summary(source) {
  const failed = [];
  const fileMs = new Map();
  let passed = 0;
  for await (const { type, data } of source) {
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    const file = relative(data.file);
    if (data.nesting === 0) fileMs.set(file, (fileMs.get(file) ?? 0) + (data.details?.duration_ms ?? 0));
    // Suites are counted by their tests, as the TAP summary counts them; a suite that fails because
    // a test in it did is not named, the test is.
    if (type === 'test:pass') passed += data.details?.type === 'suite' ? 0 : 1;
    else if (data.details?.error?.failureType !== 'subtestsFailed') failed.push(`  ${file}: ${data.name}: ${reason(data.details?.error)}`);
  }
  const slowest = [...fileMs].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_SHOWN);
  yield [
    `Test summary: ${passed} passed, ${failed.length} failed`,
    ...(failed.length > 0 ? ['Failed:', ...failed] : []),
    `Slowest files: ${slowest.map(([file, ms]) => `${file} ${Math.round(ms / 1000)} s`).join(', ')}`,
    '',
  ].join('\n');
}

/** The first line of why a test failed: the assertion or error it threw, not the runner's wrapper. */
function reason(error) {
  const cause = error?.cause instanceof Error ? error.cause.message : typeof error?.cause === 'string' ? error.cause : undefined;
  return String(cause ?? error?.message ?? 'failed').split('\n')[0].slice(0, 200);
}

function relative(file) {
  if (file === undefined) return '(unknown file)';
  const at = file.lastIndexOf('/test/');
  return at >= 0 ? file.slice(at + 1) : file;
}
