import { readFileSync, writeFileSync } from 'node:fs';
import { requestLine } from './input-case.js';
import { corpus, outcome } from './input-corpus.js';

export const DOCS_FILE = new URL('../../../docs/robustness.md', import.meta.url);
export const TABLE_START = '<!-- corpus-table:start (generated from test/robustness/helpers/input-corpus*.ts) -->';
export const TABLE_END = '<!-- corpus-table:end -->';

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The corpus as the Markdown table docs/robustness.md shows. */
export function corpusTable(): string {
  const lines = ['| # | Part | Request | What is tried | Outcome |', '|---|---|---|---|---|'];
  corpus.forEach((c, i) => {
    lines.push(`| ${i + 1} | ${c.group} | \`${cell(requestLine(c.request))}\` | ${cell(c.tried)} | ${cell(outcome(c.expect))} |`);
  });
  return lines.join('\n');
}

/** The table as it currently stands in docs/robustness.md, or undefined when the markers are missing. */
export function documentedTable(): string | undefined {
  const text = readFileSync(DOCS_FILE, 'utf8');
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start === -1 || end === -1) return undefined;
  return text.slice(start + TABLE_START.length, end).trim();
}

/** Rewrites the table between the markers; the rest of the file is left alone. */
export function writeDocumentedTable(): void {
  const text = readFileSync(DOCS_FILE, 'utf8');
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start === -1 || end === -1) throw new Error(`markers missing in ${DOCS_FILE.pathname}`);
  writeFileSync(DOCS_FILE, `${text.slice(0, start + TABLE_START.length)}\n${corpusTable()}\n${text.slice(end)}`);
}
