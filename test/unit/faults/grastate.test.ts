import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { markSafeToBootstrap, readGrastate, recoveredPosition } from '../../faults/cluster/grastate.js';

const dir = mkdtempSync(join(tmpdir(), 'grastate-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const crashed = '# GALERA saved state\nversion: 2.1\nuuid:    fb5c6468-eb7b-11f1-b1fd-bf3abcd05517\nseqno:   -1\nsafe_to_bootstrap: 0\n';

test('grastate.dat after a crash: seqno -1, not safe to bootstrap', () => {
  const file = join(dir, 'crashed.dat');
  writeFileSync(file, crashed);
  assert.deepEqual(readGrastate(file), { uuid: 'fb5c6468-eb7b-11f1-b1fd-bf3abcd05517', seqno: -1, safeToBootstrap: false });
});

test('the node chosen to bootstrap is marked safe_to_bootstrap: 1, the rest kept', () => {
  const file = join(dir, 'chosen.dat');
  writeFileSync(file, crashed);
  markSafeToBootstrap(file);
  assert.equal(readGrastate(file)!.safeToBootstrap, true);
  assert.equal(readFileSync(file, 'utf8'), crashed.replace('safe_to_bootstrap: 0', 'safe_to_bootstrap: 1'));
});

test('--wsrep-recover: the last position logged', () => {
  const log = '[Note] WSREP: Recovered position: 00000000-0000-0000-0000-000000000000:-1\n[Note] WSREP: Recovered position: fb5c6468-eb7b-11f1-b1fd-bf3abcd05517:10985\n';
  assert.deepEqual(recoveredPosition(log), { uuid: 'fb5c6468-eb7b-11f1-b1fd-bf3abcd05517', seqno: 10985 });
  assert.equal(recoveredPosition('[ERROR] Aborting'), undefined);
});

test('no grastate.dat: undefined', () => assert.equal(readGrastate(join(dir, 'missing.dat')), undefined));
