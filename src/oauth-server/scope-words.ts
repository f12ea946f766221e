import type { Scope } from '../auth/scopes.js';

/** What a person allows when an app asks for each scope, in the consent page's words. */
export const SCOPE_WORDS: Readonly<Record<Scope | 'offline_access', string>> = {
  'read:program':
    "Read the program's setup: its suppliers, the report catalog and the saved queries.",
  'read:financial':
    'Read money: invoices with their lines, expenses, and the figures of reports and saved queries.',
  'read:workforce':
    'Read people and time: workers, their assignments, timesheets and approval statuses.',
  'read:pii':
    "See workers' names and work email addresses (without it, records come without them).",
  'read:audit':
    'Read the access trail: who read which records, when, from where and through which app (ids, never names).',
  offline_access:
    'Stay connected: the app may keep reading after you close it, until you sign out, the grant ' +
    'expires, or your access key is revoked.',
};

/** The scopes the built-in server offers: SPEC's four, and `offline_access` for refresh tokens. */
export const OFFERED_SCOPES = Object.keys(SCOPE_WORDS) as (keyof typeof SCOPE_WORDS)[];
