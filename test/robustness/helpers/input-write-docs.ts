// Regenerates the corpus table in docs/robustness.md:
//   node --import tsx test/robustness/helpers/input-write-docs.ts
import { writeDocumentedTable } from './input-docs-table.js';

writeDocumentedTable();
