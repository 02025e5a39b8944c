import type { Scope } from './principal.js';

/** Every scope a token may carry: reading users; creating, updating or deleting them; reading the change events; managing webhook endpoints. */
export const scopes: readonly Scope[] = ['users:read', 'users:write', 'events:read', 'webhooks:admin'];

export function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}
