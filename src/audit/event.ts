import { hash } from 'node:crypto';
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
  return hash('sha256', `${prev}\n${chainId}\n${seq}\n${json}`, 'hex');
}

/**
 * A key JavaScript orders before the others whatever the order it was added in (`"2"`, `"10"`);
 * `__proto__` is not an own key when assigned.
 */
const INDEX_KEY = /^(?:0|[1-9]\d*)$/;

/**
 * A copy of `value` whose objects have their keys in RFC 8785's order (UTF-16 code units), for
 * JSON.stringify; null when an object has a key JavaScript would not keep in that order.
 */
function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) {
      const sorted = sortedCopy(item);
      if (sorted === UNSORTABLE) return UNSORTABLE;
      items.push(sorted);
    }
    return items;
  }
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    if (INDEX_KEY.test(key) || key === '__proto__') return UNSORTABLE;
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined) continue;
    const sorted = sortedCopy(member);
    if (sorted === UNSORTABLE) return UNSORTABLE;
    copy[key] = sorted;
  }
  return copy;
}
const UNSORTABLE = Symbol('unsortable');

/**
 * The canonical JSON of an event (RFC 8785): the bytes kept and hashed. Its keys sorted, then
 * JSON.stringify, whose strings and numbers are RFC 8785's own (ECMAScript's serialization): the
 * same bytes as the `canonicalize` library, several times faster (the trail makes one per answered
 * request). An object with an array-index-like key (which JavaScript orders first) or a
 * `__proto__` key goes through `canonicalize` itself. test/audit/canonical-event.test.ts holds the two equal.
 */
export function canonicalEvent(event: AuditEvent): string {
  const sorted = sortedCopy(event);
  return sorted === UNSORTABLE ? (canonicalize(event) as string) : JSON.stringify(sorted);
}
