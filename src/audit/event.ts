import { hash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AnsweredRequest } from '../operations/answered.js';
import type { Revelation, RevealedRecord } from '../operations/revelation.js';
import { keptParams, keptQuery, type AnswerOutcome, type IdClaim } from './kept-params.js';
import type { CountedBy } from './refusal-counts.js';

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
  /**
   * The parameters as accepted, a cursor left out, text a person typed as `{text: true, length}`
   * (kept-params.ts); null when the request was not accepted.
   */
  params: Record<string, unknown> | null;
  status: number;
  code: string | null;
  revealed: RevealedRecord[];
  report?: { query: unknown; rows: number };
  /**
   * A counted refusal's event (refusal-counts.ts): how many refusals of its UTC minute it stands
   * for, its first one's time, operation and user agent; `countedBy` says how they were grouped.
   */
  count?: number;
  countedBy?: CountedBy;
}

/** A user agent is kept to this many characters: it is the client's own text. */
const MAX_USER_AGENT = 200;

/** `text` cut to `max` characters (code points: never half a surrogate pair). */
const atMost = (text: string, max: number): string =>
  text.length <= max ? text : [...text].slice(0, max).join('');

/**
 * What an answer revealed, with the id of its set of records (a digest of their canonical JSON,
 * 128 bits, base64url; null for none): the same for every answer that carried the same records.
 */
export interface Revealed {
  revelation: Revelation;
  set: string | null;
  /** The records' canonical JSON (what the event's JSON holds as `revealed`). */
  json: string;
  /** The workers they name ("who saw this worker"). */
  workers: string[];
}

const NOTHING: Revealed = { revelation: { records: [] }, set: null, json: '[]', workers: [] };

/** A set's id: 128 bits of SHA-256 over its records' canonical JSON; null for no records. */
const setOfJson = (records: number, json: string): string | null =>
  records === 0 ? null : hash('sha256', json, 'base64url').slice(0, 22);

/** The id of the set of `records` (what an event's `revealed_set` column must hold). */
export function revealedSetOf(records: readonly RevealedRecord[]): string | null {
  return setOfJson(records.length, canonicalJson(records));
}

/**
 * What answers revealed, by their data: a cached answer is the same object each time it is sent
 * again (and the same input with it), so its records are read and digested once.
 */
const revealedByData = new WeakMap<object, Revealed>();

function revealedOf(request: AnsweredRequest): Revealed {
  const { operation, seen } = request;
  if (!operation?.reveals || seen.data === undefined || request.code !== null) return NOTHING;
  const data = seen.data;
  const known = typeof data === 'object' && data !== null ? revealedByData.get(data) : undefined;
  if (known) return known;
  const revelation = operation.reveals(seen.input as never, data as never);
  const json = canonicalJson(revelation.records);
  const revealed: Revealed = {
    revelation,
    set: setOfJson(revelation.records.length, json),
    json,
    workers: workersIn(revelation.records),
  };
  if (typeof data === 'object' && data !== null) revealedByData.set(data, revealed);
  return revealed;
}

/** What the answer says of the request's plain parameters (kept-params.ts). */
function outcomeOf(request: AnsweredRequest): Omit<AnswerOutcome, 'revealed'> {
  const answered = request.status === 200 && request.code === null;
  const data = request.seen.data as { items?: unknown; item?: unknown } | undefined;
  const shown =
    answered &&
    typeof data === 'object' &&
    data !== null &&
    (Array.isArray(data.items)
      ? data.items.length > 0
      : 'item' in data
        ? data.item !== null && data.item !== undefined
        : true);
  return { answered, shown };
}

/**
 * The event of an answered request (what it carried, by the operation's own account), what it
 * revealed (its set, the records' canonical JSON, the workers they name), and the id parameters
 * the answer did not show to be genuine (the trail asks the store about them before writing).
 */
export function eventOf(request: AnsweredRequest): {
  event: AuditEvent;
  revealed: Revealed;
  claims: IdClaim[];
} {
  const { principal, operation, seen } = request;
  const accepted = seen.input !== undefined && typeof seen.input === 'object' && seen.input;
  const revealed = revealedOf(request);
  const outcome = { ...outcomeOf(request), revealed: revealed.revelation.records };
  const kept = accepted
    ? keptParams(operation, seen.input as Record<string, unknown>, outcome)
    : { params: null, claims: [] };
  const params = kept.params;
  const { revelation } = revealed;
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
    userAgent: request.userAgent === null ? null : atMost(request.userAgent, MAX_USER_AGENT),
    transport: request.transport,
    operation: operation?.name ?? null,
    params,
    status: request.status,
    code: request.code,
    revealed: revelation.records,
  };
  if (revelation.report)
    event.report = {
      query: keptQuery(revelation.report.query, outcome.answered),
      rows: revelation.report.rows,
    };
  return { event, revealed, claims: kept.claims };
}

/** The workers an event revealed, itself or through a record naming it ("who saw this worker"). */
export function workersOf(event: Pick<AuditEvent, 'revealed'>): string[] {
  return workersIn(event.revealed);
}

const workersIn = (records: readonly RevealedRecord[]): string[] => [
  ...new Set(records.flatMap((r) => (r.worker === undefined ? [] : [r.worker]))),
];

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
  return canonicalJson(event);
}

/** An event's members in RFC 8785's order (UTF-16 code units), `revealed` among them. */
const EVENT_KEYS = [
  'address',
  'at',
  'caller',
  'code',
  'count',
  'countedBy',
  'operation',
  'params',
  'report',
  'requestId',
  'revealed',
  'role',
  'status',
  'supplier',
  'transport',
  'userAgent',
  'worker',
  'workspace',
] as const satisfies readonly (keyof AuditEvent)[];
const EVENT_KEY_SET = new Set<string>(EVENT_KEYS);

/**
 * The same bytes, with the canonical JSON of its `revealed` known (a cached answer's, made once,
 * or its set's reference): the members in their canonical order around it, nested values sorted
 * (an event has no other members; one that has goes through canonicalEvent's way). Equal to
 * canonicalEvent(event) (test/audit/canonical-event.test.ts).
 */
export function canonicalEventWith(event: AuditEvent, revealedJson: string): string {
  for (const key in event)
    if (!EVENT_KEY_SET.has(key)) return canonicalWithout(event, revealedJson);
  // One JSON.stringify of the members in their canonical order (a key that is not an array
  // index keeps the order it was added in), nested values as sorted copies, `revealed` held by
  // a mark its JSON then takes the place of (issue 59: one call, not one per member).
  const ordered: Record<string, unknown> = {};
  for (const key of EVENT_KEYS) {
    const value = event[key];
    if (value === undefined) continue;
    if (key === 'revealed') ordered[key] = REVEALED_MARK;
    else if (typeof value !== 'object' || value === null) ordered[key] = value;
    else {
      const sorted = sortedCopy(value);
      if (sorted === UNSORTABLE) return canonicalWithout(event, revealedJson);
      ordered[key] = sorted;
    }
  }
  const json = JSON.stringify(ordered);
  // The members after `revealed` are scalars: the last mark is its own.
  const at = json.lastIndexOf(REVEALED_MARK_JSON);
  return `${json.slice(0, at)}"revealed":${revealedJson}${json.slice(at + REVEALED_MARK_JSON.length)}`;
}

/** What stands for `revealed` until its JSON is put in (a NUL: JSON.stringify escapes it). */
const REVEALED_MARK = '\0revealed';
const REVEALED_MARK_JSON = `"revealed":${JSON.stringify(REVEALED_MARK)}`;

/** canonicalEventWith for any object: the members before `revealed` and those after, around it. */
function canonicalWithout(event: AuditEvent, revealedJson: string): string {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event))
    if (key !== 'revealed') (key < 'revealed' ? before : after)[key] = value;
  const parts = [canonicalJson(before).slice(1, -1), `"revealed":${revealedJson}`];
  const tail = canonicalJson(after).slice(1, -1);
  if (tail !== '') parts.push(tail);
  return `{${parts.filter((part) => part !== '').join(',')}}`;
}

function canonicalJson(value: unknown): string {
  const sorted = sortedCopy(value);
  return sorted === UNSORTABLE ? (canonicalize(value) as string) : JSON.stringify(sorted);
}
