import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { refusedKey } from '../../src/http/json-keys.js';

describe('refusedKey: duplicate and prototype keys in a JSON text', () => {
  const rows: ReadonlyArray<readonly [string, string, ReturnType<typeof refusedKey>]> = [
    ['plain object', '{"name":"a","email":"b"}', undefined],
    ['same key in sibling objects', '[{"a":1},{"a":2}]', undefined],
    ['same key at two depths', '{"a":{"a":1}}', undefined],
    ['a forbidden word as a value', '{"name":"__proto__","email":"constructor"}', undefined],
    ['an escaped quote before a colon inside a string', '{"name":"a\\":\\"b","email":"c"}', undefined],
    ['a backslash at the end of a string', '{"name":"a\\\\","email":"b"}', undefined],
    ['braces inside strings', '{"name":"{\\"a\\":1,\\"a\\":2}","email":"}"}', undefined],
    ['whitespace around the colon', '{ "a" : 1 , "b" : 2 }', undefined],
    ['a scalar text', '"__proto__"', undefined],
    ['duplicate at top level', '{"a":1,"a":2}', 'duplicate'],
    ['duplicate after whitespace', '{"a":1,\n\t"a" :2}', 'duplicate'],
    ['duplicate spelled with an escape', '{"name":1,"\\u006eame":2}', 'duplicate'],
    ['duplicate in an object inside an array', '{"list":[{"x":1,"x":2}]}', 'duplicate'],
    ['duplicate after a closed nested object', '{"a":{"b":1},"a":2}', 'duplicate'],
    ['__proto__', '{"__proto__":{}}', 'forbidden'],
    ['__proto__ escaped', '{"\\u005f_proto__":{}}', 'forbidden'],
    ['constructor', '{"constructor":{"prototype":{}}}', 'forbidden'],
    ['prototype deep inside', '{"a":[1,{"b":{"prototype":1}}]}', 'forbidden'],
  ];
  for (const [what, text, expected] of rows) {
    test(`${what}: ${text} -> ${expected ?? 'accepted'}`, () => {
      JSON.parse(text); // every row is valid JSON, as the function requires
      assert.equal(refusedKey(text), expected);
    });
  }
});
