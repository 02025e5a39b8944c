import type { Scope } from './principal.js';

/** Every scope a token may carry: reading users, and creating, updating or deleting them. */
export const scopes: readonly Scope[] = ['users:read', 'users:write'];

export function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}
