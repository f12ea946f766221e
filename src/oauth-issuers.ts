import { readFileSync } from 'node:fs';

/**
 * VMS_READ_OAUTH_ISSUERS (DESIGN §4.12, docs/identity.md): the identity providers whose JWT
 * access tokens are accepted, and how their claims say who is calling. Read and checked with the
 * rest of the environment (config.ts), so a bad entry stops the command at start.
 */
export interface OAuthIssuer {
  /** The issuer identifier, compared exactly with a token's `iss`; its discovery document is here. */
  issuer: string;
  /** A workspace every token of this issuer belongs to; otherwise the `claims.workspace` claim says. */
  workspace?: string;
  /** A role every token of this issuer has; otherwise the `claims.role` claim says. */
  role?: IssuerRole;
  /** The claims read, each named (defaults: vms_workspace, vms_role, vms_worker, vms_supplier). */
  claims: IssuerClaims;
}

export const ISSUER_ROLES = ['staff', 'worker', 'billing_entity'] as const;
export type IssuerRole = (typeof ISSUER_ROLES)[number];

export interface IssuerClaims {
  workspace: string;
  role: string;
  worker: string;
  supplier: string;
  /** The claim holding scopes; unset, `scope` then `scp`. */
  scopes?: string;
}

export const DEFAULT_CLAIMS: Readonly<IssuerClaims> = {
  workspace: 'vms_workspace',
  role: 'vms_role',
  worker: 'vms_worker',
  supplier: 'vms_supplier',
};

/** A refused value: what is wrong, in words (config.ts prefixes the variable's name). */
export class IssuerConfigError extends Error {}

const ENTRY_MEMBERS = new Set(['issuer', 'workspace', 'role', 'claims']);
const CLAIM_MEMBERS = new Set(['workspace', 'role', 'worker', 'supplier', 'scopes']);

/** Loopback hosts, where an issuer may be plain http (a local identity provider, tests). */
export function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

function issuerUrl(value: unknown, at: string): string {
  if (!nonEmpty(value) || !URL.canParse(value))
    throw new IssuerConfigError(`${at}: issuer must be an absolute URL`);
  const url = new URL(value);
  const secure =
    url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  if (!secure)
    throw new IssuerConfigError(`${at}: issuer must be https (http only on a loopback address)`);
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    throw new IssuerConfigError(`${at}: issuer must have no query, fragment or credentials`);
  return value;
}

function claimsOf(value: unknown, at: string): IssuerClaims {
  if (value === undefined) return { ...DEFAULT_CLAIMS };
  if (!isObject(value)) throw new IssuerConfigError(`${at}: claims must be an object`);
  for (const [name, claim] of Object.entries(value)) {
    if (!CLAIM_MEMBERS.has(name))
      throw new IssuerConfigError(
        `${at}: claims takes only workspace, role, worker, supplier and scopes`,
      );
    if (!nonEmpty(claim))
      throw new IssuerConfigError(`${at}: claims.${name} must be a claim's name`);
  }
  return { ...DEFAULT_CLAIMS, ...(value as Partial<IssuerClaims>) };
}

function entryOf(value: unknown, index: number): OAuthIssuer {
  const at = `entry ${index + 1}`;
  if (!isObject(value)) throw new IssuerConfigError(`${at} must be an object`);
  for (const name of Object.keys(value))
    if (!ENTRY_MEMBERS.has(name))
      throw new IssuerConfigError(`${at}: takes only issuer, workspace, role and claims`);
  const entry: OAuthIssuer = {
    issuer: issuerUrl(value.issuer, at),
    claims: claimsOf(value.claims, at),
  };
  if (value.workspace !== undefined) {
    if (!nonEmpty(value.workspace))
      throw new IssuerConfigError(`${at}: workspace must be a workspace id`);
    entry.workspace = value.workspace;
  }
  if (value.role !== undefined) {
    if (!(ISSUER_ROLES as readonly unknown[]).includes(value.role))
      throw new IssuerConfigError(`${at}: role must be one of ${ISSUER_ROLES.join(', ')}`);
    entry.role = value.role as IssuerRole;
  }
  return entry;
}

/**
 * The issuers of VMS_READ_OAUTH_ISSUERS: a JSON array, or `@path` to a file holding one. Unset or
 * empty, none (only access keys and the built-in server's tokens are accepted).
 */
export function parseOAuthIssuers(raw: string | undefined): OAuthIssuer[] {
  if (raw === undefined || raw.trim() === '') return [];
  let text = raw;
  if (raw.startsWith('@')) {
    try {
      text = readFileSync(raw.slice(1), 'utf8');
    } catch {
      throw new IssuerConfigError(`names a file that cannot be read: ${raw.slice(1)}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new IssuerConfigError('must be a JSON array of issuers, or @path to a file holding one');
  }
  if (!Array.isArray(parsed))
    throw new IssuerConfigError('must be a JSON array of issuers, or @path to a file holding one');
  const issuers = parsed.map(entryOf);
  const seen = new Set<string>();
  for (const [index, { issuer }] of issuers.entries()) {
    if (seen.has(issuer))
      throw new IssuerConfigError(`entry ${index + 1}: issuer ${issuer} is listed twice`);
    seen.add(issuer);
  }
  return issuers;
}
