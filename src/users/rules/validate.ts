import { HttpError } from '../../errors/http-error.js';
import { fieldMessages, messages } from '../../errors/messages.js';

/** The `users.name` and `users.email` columns are VARCHAR(100): 100 code points in utf8mb4. */
export const MAX_FIELD_LENGTH = 100;

export interface UserInput {
  name: string;
  email: string;
}

/** How the routes read bodies: made once from the VALIDATE_EMAIL setting. */
export interface UserValidation {
  /** A create or full-update body (see validateUserInput). */
  input(body: Record<string, unknown>): UserInput;
  /** A partial update body (see validateUserPatch). */
  patch(body: Record<string, unknown>): Partial<UserInput>;
}

type Field = keyof UserInput;
/** A present, non-blank field's value as it is stored, or an HttpError 400. */
type FieldReader = (field: Field, value: unknown) => string;

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
/** One `@` between a non-empty local part and domain; no white space or control character anywhere. */
const EMAIL_SHAPE = /^[^@\s\p{Cc}]+@[^@\s\p{Cc}]+$/u;

/** The contract: values are stored as sent, and an email is only checked for presence. */
const asSent: FieldReader = checkField;

/** VALIDATE_EMAIL=on: values are stored trimmed of surrounding white space, and an email must look like one. */
const trimmed: FieldReader = (field, value) => {
  if (typeof value !== 'string') throw new HttpError(400, fieldMessages.notString(field));
  const text = value.trim();
  if (field === 'email' && !EMAIL_SHAPE.test(text)) throw new HttpError(400, messages.invalidEmail);
  return checkField(field, text);
};

export function userValidation(validateEmail: boolean): UserValidation {
  return { input: (body) => validateUserInput(body, validateEmail), patch: (body) => validateUserPatch(body, validateEmail) };
}

/**
 * Checks a create/update body (with `validateEmail`, as VALIDATE_EMAIL=on reads it). Presence
 * comes first, with the contract's message, so a body that lacks either field (or holds only white
 * space in it) always gets `Name and email required`. Other keys (`id`, `created_at`, ...) are ignored.
 */
export function validateUserInput(body: Record<string, unknown>, validateEmail = false): UserInput {
  const read = validateEmail ? trimmed : asSent;
  const { name, email } = body;
  if (isBlank(name) || isBlank(email)) throw new HttpError(400, messages.nameAndEmailRequired);
  return { name: read('name', name), email: read('email', email) };
}

/**
 * Checks a partial update (JSON merge patch): `name` and/or `email`, each checked as in a full
 * update but named in the error when empty or blank. Other keys are ignored; a body with neither
 * field changes nothing and is refused.
 */
export function validateUserPatch(body: Record<string, unknown>, validateEmail = false): Partial<UserInput> {
  const read = validateEmail ? trimmed : asSent;
  const patch: Partial<UserInput> = {};
  for (const field of ['name', 'email'] as const) {
    const value = body[field];
    if (value === undefined) continue;
    if (typeof value === 'string' && value.trim() === '') throw new HttpError(400, fieldMessages.empty(field));
    patch[field] = read(field, value);
  }
  if (patch.name === undefined && patch.email === undefined) throw new HttpError(400, messages.nameOrEmailRequired);
  return patch;
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function checkField(field: Field, value: unknown): string {
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

/** VALIDATE_EMAIL and UNIQUE_EMAIL, as a deployment sets them. */
export interface Integrity {
  validateEmail: boolean;
  uniqueEmail: boolean;
}
