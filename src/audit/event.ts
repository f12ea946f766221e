import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AnsweredRequest } from '../operations/answered.js';
import type { Revelation, RevealedRecord } from '../operations/revelation.js';

/**
 * One answered request in the access trail (DESIGN §4.17): ids, never names or emails, so that an
 * erasure leaves it as it is. `caller` is null when no credential was accepted (a 401, or a 429
 * before one was checked).
 */
export interface AuditEvent {
  at: number;
  requestId: string;
  workspace: string | null;
  caller:
    | { kind: 'access_key'; keyId: string }
    | {
        kind: 'oauth';
        issuer: string;
        subject: string;
        clientId: string | null;
        /** A client of the built-in server: its registered name (the client's own text). */
        clientName?: string;
      }
    | null;
  role: string | null;
  worker: string | null;
  supplier: string | null;
  address: string | null;
  userAgent: string | null;
  transport: 'rest' | 'mcp';
  operation: string | null;
  /** The parameters as accepted, a cursor left out; null when the request was not accepted. */
  params: Record<string, unknown> | null;
  status: number;
  code: string | null;
  revealed: RevealedRecord[];
  report?: { query: unknown; rows: number };
}

/** A user agent is kept to this many characters: it is the client's own text. */
const MAX_USER_AGENT = 200;

/** The event of an answered request: what it carried, by the operation's own account. */
export function eventOf(request: AnsweredRequest): AuditEvent {
  const { principal, operation, seen } = request;
  const accepted = seen.input !== undefined && typeof seen.input === 'object' && seen.input;
  const params = accepted ? { ...(seen.input as Record<string, unknown>) } : null;
  if (params) delete params.cursor;
  const revelation: Revelation =
    operation?.reveals && seen.data !== undefined && request.code === null
      ? operation.reveals(seen.input as never, seen.data as never)
      : { records: [] };
  const event: AuditEvent = {
    at: request.at,
    requestId: request.requestId,
    workspace: principal?.workspaceId ?? null,
    caller: principal
      ? principal.grant
        ? {
            kind: 'oauth',
            issuer: principal.grant.issuer,
            subject: principal.grant.subject,
            clientId: principal.grant.clientId,
            ...(principal.grant.clientName === undefined
              ? {}
              : { clientName: principal.grant.clientName }),
          }
        : { kind: 'access_key', keyId: principal.tokenId }
      : null,
    role: principal?.role ?? null,
    worker: principal?.workerId ?? null,
    supplier: principal?.supplierId ?? null,
    address: request.address,
    userAgent: request.userAgent?.slice(0, MAX_USER_AGENT) ?? null,
    transport: request.transport,
    operation: operation?.name ?? null,
    params,
    status: request.status,
    code: request.code,
    revealed: revelation.records,
  };
  if (revelation.report) event.report = revelation.report;
  return event;
}

/** The workers an event revealed, itself or through a record naming it ("who saw this worker"). */
export function workersOf(event: AuditEvent): string[] {
  return [...new Set(event.revealed.flatMap((r) => (r.worker === undefined ? [] : [r.worker])))];
}

/** What a chain's first event follows: the chain's own start, before any event. */
export const chainStart = (chainId: string): string => `start:${chainId}`;

/**
 * An event's hash (SHA-256, hex) over the one before it (`prev`) and its own canonical JSON
 * (RFC 8785, `canonicalize`) with its chain and place: a changed, removed or inserted event no
 * longer follows.
 */
export function eventHash(prev: string, chainId: string, seq: number, json: string): string {
  return createHash('sha256').update(`${prev}\n${chainId}\n${seq}\n${json}`).digest('hex');
}

/** The canonical JSON of an event: the bytes kept and hashed. */
export function canonicalEvent(event: AuditEvent): string {
  return canonicalize(event) as string;
}
