import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../src/paths.js';
import type { RunRecord, Verdict } from '../checkers/all.js';

/**
 * A fault with anomalies leaves its whole record, to be read after the run: the anomalies, the
 * history, every node's final users and outbox, what the readers received. Returns the file.
 */
export function saveEvidence(fault: string, tag: string, record: RunRecord, verdict: Verdict): string {
  const dir = join(projectRoot, 'test-artifacts', 'faults');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${fault}-${tag}.json`);
  writeFileSync(file, JSON.stringify({ fault, tag, anomalies: verdict.anomalies, ...record }));
  return file;
}
