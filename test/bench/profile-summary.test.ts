import assert from 'node:assert/strict';
import { test } from 'node:test';
import { summarise } from '../../bench/profile-summary.js';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

/**
 * root -> (idle); root -> onRequest (src/http/server.js) -> writev (native);
 * root -> execute (mysql2) -> execute (mysql2, recursing). Samples: idle 6, onRequest 1, writev 2, outer execute 0, inner execute 1.
 */
const profile = {
  startTime: 0,
  endTime: 10,
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 5] },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('onRequest', 'file:///app/bench/results/build/src/http/server.js', 43), children: [4] },
    { id: 4, callFrame: frame('writev') },
    { id: 5, callFrame: frame('execute', 'file:///app/node_modules/mysql2/lib/connection.js', 9), children: [6] },
    { id: 6, callFrame: frame('execute', 'file:///app/node_modules/mysql2/lib/connection.js', 9) },
  ],
  samples: [2, 2, 2, 3, 4, 4, 2, 6, 2, 2],
};

const shareOf = (lines: Array<{ name: string; share: number }>, name: string) => lines.find((line) => line.name === name)?.share;

test('shares are of the busy samples: waiting while other sides are measured does not dilute them', () => {
  const summary = summarise(profile);
  assert.equal(summary.busy, 0.4);
  assert.equal(shareOf(summary.functions, 'writev '), 0.5);
  assert.equal(shareOf(summary.functions, 'onRequest src/http/server.js:44'), 0.25);
  assert.equal(shareOf(summary.functions, '(idle) '), undefined);
  assert.equal(summary.functions.reduce((sum, line) => sum + line.share, 0), 1);
});

test('self time is summed by where the code lives', () => {
  const { places } = summarise(profile);
  assert.equal(shareOf(places, '(native)'), 0.5);
  assert.equal(shareOf(places, 'src/http'), 0.25);
  assert.equal(shareOf(places, 'mysql2'), 0.25);
});

test('total time counts a function with all it called, and a recursive one once per sample', () => {
  const { totals } = summarise(profile);
  assert.equal(shareOf(totals, '(root) '), 1);
  assert.equal(shareOf(totals, 'onRequest src/http/server.js:44'), 0.75);
  assert.equal(shareOf(totals, 'execute node_modules/mysql2/lib/connection.js:10'), 0.25);
  assert.deepEqual(totals.slice(0, 2).map((line) => line.name), ['(root) ', 'onRequest src/http/server.js:44']);
});
