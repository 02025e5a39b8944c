import { HttpError } from '../../errors/http-error.js';
import { fieldMessages, messages } from '../../errors/messages.js';

/** The `users.name` and `users.email` columns are VARCHAR(100): 100 code points in utf8mb4. */
export const MAX_FIELD_LENGTH = 100;

export interface UserInput {
  name: string;
  email: string;
}

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * Checks a create/update body. Presence comes first, with the contract's message, so a body that
 * lacks either field always gets `Name and email required`. Other keys (`id`, `created_at`, ...)
 * are ignored.
 */
export function validateUserInput(body: Record<string, unknown>): UserInput {
  const { name, email } = body;
  if (isBlank(name) || isBlank(email)) throw new HttpError(400, messages.nameAndEmailRequired);
  return { name: checkField('name', name), email: checkField('email', email) };
}

/**
 * Checks a partial update (JSON merge patch): `name` and/or `email`, each checked as in a full
 * update but named in the error when empty or blank. Other keys are ignored; a body with neither
 * field changes nothing and is refused.
 */
export function validateUserPatch(body: Record<string, unknown>): Partial<UserInput> {
  const patch: Partial<UserInput> = {};
  for (const field of ['name', 'email'] as const) {
    const value = body[field];
    if (value === undefined) continue;
    if (typeof value === 'string' && value.trim() === '') throw new HttpError(400, fieldMessages.empty(field));
    patch[field] = checkField(field, value);
  }
  if (patch.name === undefined && patch.email === undefined) throw new HttpError(400, messages.nameOrEmailRequired);
  return patch;
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function checkField(field: string, value: unknown): string {
  if (typeof value !== 'string') throw new HttpError(400, fieldMessages.notString(field));
  if (codePointLength(value) > MAX_FIELD_LENGTH) {
    throw new HttpError(400, fieldMessages.tooLong(field, MAX_FIELD_LENGTH));
  }
  if (!value.isWellFormed()) throw new HttpError(400, fieldMessages.notUnicode(field));
  if (CONTROL_CHARACTER.test(value)) throw new HttpError(400, fieldMessages.controlCharacters(field));
  return value;
}

function codePointLength(value: string): number {
  // UTF-16 length is an upper bound on the code point count; counting is only needed above the limit.
  if (value.length <= MAX_FIELD_LENGTH) return value.length;
  let count = 0;
  for (const _codePoint of value) count++;
  return count;
}
