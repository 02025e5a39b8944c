import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HttpError } from '../../src/errors/http-error.js';
import { MAX_FIELD_LENGTH, userValidation, validateUserInput, validateUserPatch } from '../../src/users/rules/validate.js';

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

const INVALID_EMAIL = 'email must be a valid email address';

describe('validateUserInput with VALIDATE_EMAIL: accepted bodies are stored trimmed', () => {
  const rows = [
    { rule: 'surrounding spaces are trimmed from name and email', body: { name: '  Ada  ', email: ' E@X.COM ' }, stored: { name: 'Ada', email: 'E@X.COM' } },
    { rule: 'surrounding tabs and line breaks are trimmed, not refused as control characters', body: { name: '\tAda\n', email: '\r\na@b.c\t' }, stored: { name: 'Ada', email: 'a@b.c' } },
    { rule: 'Unicode white space around is trimmed', body: { name: '\u00a0Ada\u2003', email: '\u3000a@b.c\ufeff' }, stored: { name: 'Ada', email: 'a@b.c' } },
    { rule: 'white space inside a name is kept', body: { name: 'Ada  Lovelace', email: 'a@b.c' }, stored: { name: 'Ada  Lovelace', email: 'a@b.c' } },
    { rule: 'a domain without a dot looks like an email', body: { name: 'A', email: 'root@localhost' }, stored: { name: 'A', email: 'root@localhost' } },
    { rule: 'the 100-character limit applies after trimming', body: { name: ` ${'n'.repeat(100)} `, email: 'a@b.c' }, stored: { name: 'n'.repeat(100), email: 'a@b.c' } },
  ];
  for (const { rule, body, stored } of rows) {
    test(rule, () => {
      assert.deepEqual(validateUserInput(body, true), stored);
    });
  }
});

describe('validateUserInput with VALIDATE_EMAIL: refused bodies -> HttpError 400', () => {
  const rows: Array<{ rule: string; body: Record<string, unknown>; message: string | RegExp }> = [
    { rule: 'whitespace-only name -> the contract message', body: { name: ' \u00a0 ', email: 'a@b.c' }, message: REQUIRED },
    { rule: 'missing email -> the contract message', body: { name: 'A' }, message: REQUIRED },
    { rule: 'no @', body: { name: 'A', email: 'not an email' }, message: INVALID_EMAIL },
    { rule: 'two @', body: { name: 'A', email: 'a@b@c' }, message: INVALID_EMAIL },
    { rule: 'empty local part', body: { name: 'A', email: '@b.c' }, message: INVALID_EMAIL },
    { rule: 'empty domain', body: { name: 'A', email: 'a@' }, message: INVALID_EMAIL },
    { rule: 'a space inside', body: { name: 'A', email: 'a b@c.d' }, message: INVALID_EMAIL },
    { rule: 'a tab inside', body: { name: 'A', email: 'a@b\t.c' }, message: INVALID_EMAIL },
    { rule: 'a NUL inside', body: { name: 'A', email: 'a\u0000@b.c' }, message: INVALID_EMAIL },
    { rule: 'a C1 control character inside', body: { name: 'A', email: 'a\u0085@b.c' }, message: INVALID_EMAIL },
    { rule: 'a no-break space inside', body: { name: 'A', email: 'a@b\u00a0c' }, message: INVALID_EMAIL },
    { rule: 'a control character inside a name keeps its own message', body: { name: 'A\u0001B', email: 'a@b.c' }, message: /^name\b/ },
    { rule: 'a number email keeps its own message', body: { name: 'A', email: 5 }, message: /^email must be a string/ },
    { rule: '101 characters after trimming', body: { name: 'A', email: `${'e'.repeat(97)}@b.c` }, message: /^email\b.*100/ },
  ];
  for (const { rule, body, message } of rows) {
    test(rule, () => {
      assert.throws(
        () => validateUserInput(body, true),
        (error: unknown) =>
          error instanceof HttpError &&
          error.status === 400 &&
          (typeof message === 'string' ? error.message === message : message.test(error.message)),
      );
    });
  }
});

describe('validateUserPatch with VALIDATE_EMAIL', () => {
  test('each field given is trimmed; an absent one stays absent', () => {
    assert.deepEqual(validateUserPatch({ email: ' E@X.COM ' }, true), { email: 'E@X.COM' });
    assert.deepEqual(validateUserPatch({ name: ' Ada ' }, true), { name: 'Ada' });
  });

  const rows: Array<{ rule: string; body: Record<string, unknown>; message: string }> = [
    { rule: 'a whitespace-only email keeps the patch message for an empty field', body: { email: '  ' }, message: 'email must not be empty' },
    { rule: 'a whitespace-only name keeps the patch message for an empty field', body: { name: '\t' }, message: 'name must not be empty' },
    { rule: 'an email that does not look like one', body: { name: 'A', email: 'nope' }, message: INVALID_EMAIL },
  ];
  for (const { rule, body, message } of rows) {
    test(rule, () => {
      assert.throws(() => validateUserPatch(body, true), (error: unknown) => error instanceof HttpError && error.status === 400 && error.message === message);
    });
  }
});

describe('userValidation: made once from the VALIDATE_EMAIL setting', () => {
  test('off: values as sent, emails only present', () => {
    const validate = userValidation(false);
    assert.deepEqual(validate.input({ name: ' A ', email: ' nope ' }), { name: ' A ', email: ' nope ' });
    assert.deepEqual(validate.patch({ email: 'nope' }), { email: 'nope' });
  });

  test('on: values trimmed, emails checked', () => {
    const validate = userValidation(true);
    assert.deepEqual(validate.input({ name: ' A ', email: ' a@b ' }), { name: 'A', email: 'a@b' });
    assert.throws(() => validate.patch({ email: 'nope' }), (error: unknown) => error instanceof HttpError && error.message === INVALID_EMAIL);
  });
});
