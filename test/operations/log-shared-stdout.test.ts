import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { projectRoot } from '../../src/paths.js';

const WRITERS = 4;
const BURSTS = 20;
const LINES_PER_BURST = 400;

test('several processes logging bursts to one stdout pipe: every line arrives whole, as JSON', async () => {
  const fixture = join(projectRoot, 'test/operations/fixtures/log-burst.ts');
  // The writers share this shell's stdout, one pipe, as the workers of WORKERS=N share the primary's.
  const command = Array.from({ length: WRITERS }, () => `"${process.execPath}" --import tsx "${fixture}" ${BURSTS} ${LINES_PER_BURST} &`).join(' ') + ' wait';
  const child = spawn('sh', ['-c', command], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 0);
  const lines = Buffer.concat(chunks).toString('utf8').split('\n').filter((line) => line !== '');
  const broken = lines.filter((line) => {
    try {
      JSON.parse(line);
      return false;
    } catch {
      return true;
    }
  });
  assert.deepEqual(broken.slice(0, 3), [], 'no line cut by another process');
  assert.equal(lines.length, WRITERS * BURSTS * LINES_PER_BURST);
});
