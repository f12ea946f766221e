export const SCOPES = ['read:program', 'read:financial', 'read:workforce', 'read:pii'] as const;
export type Scope = (typeof SCOPES)[number];

export const ROLES = ['staff', 'worker', 'billing_entity'] as const;
export type Role = (typeof ROLES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
