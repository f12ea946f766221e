export { ROLES, isRole, type Role } from '../store/visibility.js';

/** SPEC's four scopes: what reading the program's data needs. */
export const SCOPES = ['read:program', 'read:financial', 'read:workforce', 'read:pii'] as const;

/**
 * Reading the access trail (DESIGN §4.17): a scope no token has unless its maker named it
 * (`token create --scopes`), and that no request for "every scope" asks for.
 */
export const AUDIT_SCOPE = 'read:audit';

/** Every scope a token may hold. */
export const TOKEN_SCOPES = [...SCOPES, AUDIT_SCOPE] as const;
export type Scope = (typeof TOKEN_SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (TOKEN_SCOPES as readonly string[]).includes(value);
}
