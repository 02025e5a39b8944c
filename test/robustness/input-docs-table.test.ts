import assert from 'node:assert/strict';
import { test } from 'node:test';
import { corpusTable, documentedTable } from './helpers/input-docs-table.js';

test('docs/robustness.md shows exactly the corpus the suite runs, with each outcome', () => {
  const documented = documentedTable();
  assert.ok(documented !== undefined, 'docs/robustness.md has the corpus-table markers');
  assert.equal(
    documented,
    corpusTable(),
    'the table is out of date: run `node --import tsx test/robustness/helpers/input-write-docs.ts`',
  );
});
