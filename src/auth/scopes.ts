export { ROLES, isRole, type Role } from '../store/visibility.js';

export const SCOPES = ['read:program', 'read:financial', 'read:workforce', 'read:pii'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
