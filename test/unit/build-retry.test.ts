import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildRetryFor, MAX_INTERRUPTIONS } from '../../src/startup/build-retry.js';

const failure = (errno: number) => Object.assign(new Error('from the server'), { errno });

describe('which failed index builds a start tries again', () => {
  test('a lock wait timeout (a transaction holds the table) is tried again, on any server', () => {
    assert.equal(buildRetryFor(failure(1205), false, 0), 'table held');
    assert.equal(buildRetryFor(failure(1205), true, MAX_INTERRUPTIONS), 'table held');
  });

  test('an interrupted build on a Galera node (another node\'s DDL aborted it) is tried again', () => {
    assert.equal(buildRetryFor(failure(1317), true, 0), 'interrupted');
    assert.equal(buildRetryFor(failure(1317), true, MAX_INTERRUPTIONS - 1), 'interrupted');
  });

  test('an interrupted build on a single server was killed by someone: it ends the start', () => {
    assert.equal(buildRetryFor(failure(1317), false, 0), undefined);
  });

  test(`after ${MAX_INTERRUPTIONS} interruptions on a Galera node, the next one ends the start`, () => {
    assert.equal(buildRetryFor(failure(1317), true, MAX_INTERRUPTIONS), undefined);
  });

  test('any other failure ends the start', () => {
    for (const error of [failure(1064), failure(1213), new Error('no errno'), null, undefined]) assert.equal(buildRetryFor(error, true, 0), undefined);
  });
});
