import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HttpError } from '../../src/errors/http-error.js';
import { MAX_FIELD_LENGTH, validateUserInput } from '../../src/users/rules/validate.js';

const REQUIRED = 'Name and email required';

describe('validateUserInput: accepted bodies', () => {
  const rows = [
    { rule: 'plain name and email', body: { name: 'Ada', email: 'ada@example.com' } },
    { rule: 'extra keys such as id and created_at are dropped', body: { name: 'Ada', email: 'a@b.c', id: 5, created_at: 'x', admin: true } },
    { rule: `${MAX_FIELD_LENGTH} characters`, body: { name: 'n'.repeat(100), email: 'e'.repeat(100) } },
    { rule: '100 emoji (200 UTF-16 units, 100 code points)', body: { name: '😀'.repeat(100), email: 'a@b.c' } },
    { rule: 'surrounding spaces are kept as sent', body: { name: '  Ada  ', email: 'a@b.c' } },
    { rule: 'email is only checked for presence', body: { name: 'Ada', email: 'not an email' } },
  ];
  for (const { rule, body } of rows) {
    test(rule, () => {
      assert.deepEqual(validateUserInput(body), { name: body.name, email: body.email });
    });
  }
});

describe('validateUserInput: refused bodies -> HttpError 400', () => {
  const rows: Array<{ rule: string; body: Record<string, unknown>; message: string | RegExp }> = [
    { rule: 'empty object', body: {}, message: REQUIRED },
    { rule: 'missing name', body: { email: 'a@b.c' }, message: REQUIRED },
    { rule: 'missing email', body: { name: 'A' }, message: REQUIRED },
    { rule: 'empty name', body: { name: '', email: 'a@b.c' }, message: REQUIRED },
    { rule: 'whitespace-only email', body: { name: 'A', email: ' \t\n ' }, message: REQUIRED },
    { rule: 'null name', body: { name: null, email: 'a@b.c' }, message: REQUIRED },
    { rule: 'missing field wins over a wrong type in the other', body: { name: 5 }, message: REQUIRED },
    { rule: 'number name', body: { name: 5, email: 'a@b.c' }, message: /^name\b/ },
    { rule: 'boolean email', body: { name: 'A', email: false }, message: /^email\b/ },
    { rule: 'array name', body: { name: ['A'], email: 'a@b.c' }, message: /^name\b/ },
    { rule: 'object email', body: { name: 'A', email: { at: 'b' } }, message: /^email\b/ },
    { rule: '101-character name', body: { name: 'n'.repeat(101), email: 'a@b.c' }, message: /^name\b.*100/ },
    { rule: '101-character email', body: { name: 'A', email: 'e'.repeat(101) }, message: /^email\b.*100/ },
    { rule: '101 emoji name', body: { name: '😀'.repeat(101), email: 'a@b.c' }, message: /^name\b/ },
    { rule: 'lone surrogate in name', body: { name: 'a\ud800b', email: 'a@b.c' }, message: /^name\b/ },
    { rule: 'control character in email', body: { name: 'A', email: 'a\u0000@b.c' }, message: /^email\b/ },
  ];
  for (const { rule, body, message } of rows) {
    test(rule, () => {
      assert.throws(
        () => validateUserInput(body),
        (error: unknown) =>
          error instanceof HttpError &&
          error.status === 400 &&
          (typeof message === 'string' ? error.message === message : message.test(error.message)),
      );
    });
  }
});
