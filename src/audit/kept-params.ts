/**
 * What the access trail keeps of a request's parameters (DESIGN §4.17): ids, enumerated values,
 * dates, numbers and limits as they were; text a person typed (a search word, a name, an email, an
 * invoice number, a report filter's values, a value given for an id parameter that names no
 * record of its kind) as `{"text": true, "length": n}`, never as typed. So an event never holds a
 * name or an email, and an erasure leaves the trail as it is.
 */
import type { TSchema } from 'typebox';
import type { AnyOperation, IdKind } from '../operations/operation.js';
import { QuerySchema } from '../semantic/query-schema.js';

/** Text a person typed, as the trail keeps it: that it was text, and how many characters. */
export interface TypedText {
  text: true;
  length: number;
}

export const typedText = (value: string): TypedText => ({ text: true, length: [...value].length });

/**
 * A plain value of an id parameter that the answer did not show to be genuine: the trail asks
 * the store whether it names a record of its kind before the event is written, and keeps it as
 * `typedText` when it does not. `holder[key]` is where it sits in the event's parameters.
 */
export interface IdClaim {
  kind: IdKind;
  value: string;
  holder: Record<string, unknown> | unknown[];
  key: string;
}

/** The schemas a member of `schema` may have under `key` (an object's, or any branch's of a union). */
function memberSchemas(schema: TSchema, key: string): TSchema[] {
  const own = (schema as { properties?: Record<string, TSchema> }).properties?.[key];
  const branches = (schema as { anyOf?: TSchema[] }).anyOf ?? [];
  return [...(own ? [own] : []), ...branches.flatMap((branch) => memberSchemas(branch, key))];
}

/** Closed formats: a value of one says nothing a person chose to type. */
const CLOSED_FORMATS = new Set(['date', 'date-time']);

/** Whether `value` is one of the values `schema` lists, or of a date format: kept as it is. */
function isClosedString(schema: TSchema, value: string): boolean {
  const s = schema as { const?: unknown; enum?: unknown[]; format?: string; anyOf?: TSchema[] };
  if (s.const === value) return true;
  if (Array.isArray(s.enum) && s.enum.includes(value)) return true;
  if (s.format !== undefined && CLOSED_FORMATS.has(s.format)) return true;
  return (s.anyOf ?? []).some((branch) => isClosedString(branch, value));
}

/**
 * `value` as the trail keeps it under `schemas` (what the input's schema allows there): numbers,
 * booleans and nulls as they are, strings only when enumerated or dates, objects and arrays
 * member by member.
 */
function keptValue(schemas: TSchema[], value: unknown): unknown {
  if (typeof value === 'string')
    return schemas.some((schema) => isClosedString(schema, value)) ? value : typedText(value);
  if (Array.isArray(value)) {
    const items = schemas.flatMap((schema) => {
      const item = (schema as { items?: TSchema }).items;
      return item ? [item] : [];
    });
    return value.map((item) => keptValue(items, item));
  }
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([key, member]) => [
        key,
        keptValue(
          schemas.flatMap((schema) => memberSchemas(schema, key)),
          member,
        ),
      ]),
    );
  return value;
}

/**
 * A report query as the trail keeps it: its metric and dimension keys when the report ran (they
 * were then the catalog's), else their lengths; a filter's values as their lengths (a supplier,
 * a site, whatever a person typed to narrow it), numbers aside; the rest (grain, range, order's
 * direction, operators, limit) as it is.
 */
export function keptQuery(query: unknown, answered: boolean): unknown {
  const kept = keptValue([QuerySchema], query);
  if (!answered || typeof query !== 'object' || query === null) return kept;
  // The keys the catalog knew, back as they were; a filter's values stay lengths.
  const raw = query as Record<string, unknown>;
  const out = kept as Record<string, unknown>;
  for (const member of ['metrics', 'dimensions'] as const)
    if (Array.isArray(raw[member])) out[member] = raw[member];
  const pairs = [
    ['order', 'key'],
    ['filters', 'dimension'],
  ] as const;
  for (const [member, key] of pairs) {
    const from = raw[member];
    const to = out[member];
    if (Array.isArray(from) && Array.isArray(to))
      from.forEach((item: Record<string, unknown>, i) => {
        (to[i] as Record<string, unknown>)[key] = item[key];
      });
  }
  return out;
}

/** What the answer says of the request's plain parameters. */
export interface AnswerOutcome {
  /** It answered (200, not a refusal): a report's keys were the catalog's. */
  answered: boolean;
  /**
   * It carried records (a page with items, a get that found its record, a report that ran): every
   * equality filter and id it was asked with then named something real.
   */
  shown: boolean;
  /** The records it carried: each of a list of ids found among them was genuine. */
  revealed: readonly { id: string }[];
}

/**
 * The parameters as the trail keeps them (a cursor left out), and the id parameters whose values
 * the answer did not show to be genuine (the trail asks the store about those).
 */
export function keptParams(
  operation: AnyOperation | null,
  input: Record<string, unknown>,
  outcome: AnswerOutcome,
): { params: Record<string, unknown>; claims: IdClaim[] } {
  const params: Record<string, unknown> = {};
  const claims: IdClaim[] = [];
  const schema = operation?.input as TSchema | undefined;
  for (const [key, value] of Object.entries(input)) {
    if (key === 'cursor' || value === undefined) continue;
    const kind = operation?.idParams?.[key];
    if (kind !== undefined && typeof value === 'string' && value.includes(',')) {
      // A list of ids (`ids=a,b,c`; an id holds no comma): each kept or its length on its own.
      const ids: unknown[] = value.split(',');
      params[key] = ids;
      const carried = new Set(outcome.revealed.map((record) => record.id));
      ids.forEach((id, i) => {
        if (!carried.has(id as string))
          claims.push({ kind, value: id as string, holder: ids as never, key: String(i) });
      });
    } else if (kind !== undefined && typeof value === 'string') {
      params[key] = value;
      if (!outcome.shown) claims.push({ kind, value, holder: params, key });
    } else if (key === 'query' && operation?.runsReports)
      params[key] = keptQuery(value, outcome.answered);
    else params[key] = keptValue(schema ? memberSchemas(schema, key) : [], value);
  }
  return { params, claims };
}
