import { bodyCases } from './input-corpus-bodies.js';
import { headerCases } from './input-corpus-headers.js';
import { urlCases } from './input-corpus-urls.js';
import type { CorpusCase, Expected } from './input-case.js';

/** The whole bad-input corpus: bodies, URLs, headers. docs/robustness.md is generated from it. */
export const corpus: ReadonlyArray<CorpusCase> = [...bodyCases, ...urlCases, ...headerCases];

/** The outcome of a case in words, for test names and the docs table. */
export function outcome(expect: Expected): string {
  let text = `${expect.status}`;
  if (expect.error !== undefined) text += ` \`${expect.error}\``;
  if (expect.creates) text += ', stored';
  else if (expect.error === undefined) text += ', headers only';
  if (expect.allow) text += `, Allow: ${expect.allow}`;
  if (expect.closes) text += ', connection closed';
  return text;
}
