import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isJsonMediaType } from '../../src/http/body.js';

describe('isJsonMediaType', () => {
  const accepted = [
    'application/json',
    'APPLICATION/JSON',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'application/json; charset="utf-8"',
    'application/json; charset=utf8',
    'application/merge-patch+json',
    'application/vnd.api+json; charset=utf-8',
    ' application/json ',
  ];
  for (const header of accepted) test(`${JSON.stringify(header)} is JSON`, () => assert.equal(isJsonMediaType(header), true));

  const refused: Array<string | undefined> = [
    undefined,
    '',
    'text/plain',
    'text/json',
    'application/jsonx',
    'application/json-seq',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    '+json',
    'application/+json',
  ];
  for (const header of refused) test(`${JSON.stringify(header)} is not JSON`, () => assert.equal(isJsonMediaType(header), false));
});
