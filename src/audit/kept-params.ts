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

/**
 * A place in the input: the schemas a value there may have (what the input's schema allows), with
 * what the trail asks of them worked out once and kept (issue 59: with a report query's schema
 * walked afresh for every value, a report's event took the event loop 37 µs, 15 µs since).
 * Its members' places are kept only for keys the schemas name, so input of any shape adds nothing.
 */
class Place {
  /** Const and enum values of the schemas and their branches: a string among them is kept. */
  private readonly closed = new Set<unknown>();
  /** A schema or branch of a closed format: any string here is kept. */
  private anyClosedFormat = false;
  private readonly members = new Map<string, Place>();
  private itemPlace: Place | undefined;

  constructor(private readonly schemas: readonly TSchema[]) {
    const note = (schema: TSchema) => {
      const s = schema as { const?: unknown; enum?: unknown[]; format?: string; anyOf?: TSchema[] };
      if ('const' in s) this.closed.add(s.const);
      if (Array.isArray(s.enum)) for (const value of s.enum) this.closed.add(value);
      if (s.format !== undefined && CLOSED_FORMATS.has(s.format)) this.anyClosedFormat = true;
      for (const branch of s.anyOf ?? []) note(branch);
    };
    for (const schema of schemas) note(schema);
  }

  /** Whether `value` is one of the values the schemas list, or of a date format: kept as it is. */
  keeps(value: string): boolean {
    return this.anyClosedFormat || this.closed.has(value);
  }

  /** The place of a member under `key`. */
  member(key: string): Place {
    const known = this.members.get(key);
    if (known) return known;
    const place = placeOf(this.schemas.flatMap((schema) => memberSchemas(schema, key)));
    if (place !== NOWHERE) this.members.set(key, place);
    return place;
  }

  /** The place of an array's items. */
  items(): Place {
    this.itemPlace ??= placeOf(
      this.schemas.flatMap((schema) => {
        const item = (schema as { items?: TSchema }).items;
        return item ? [item] : [];
      }),
    );
    return this.itemPlace;
  }
}

/** Where no schema allows anything: every string there is kept as its length. */
const NOWHERE = new Place([]);
const placeOf = (schemas: readonly TSchema[]) => (schemas.length ? new Place(schemas) : NOWHERE);

/** Each operation's input as a place, made once. */
const inputPlaces = new WeakMap<TSchema, Place>();
function inputPlaceOf(schema: TSchema): Place {
  let place = inputPlaces.get(schema);
  if (!place) inputPlaces.set(schema, (place = new Place([schema])));
  return place;
}
const QUERY_PLACE = inputPlaceOf(QuerySchema);

/** Sets `holder[key]`; a key `__proto__` as a member (as JSON.parse makes it), not as a prototype. */
function putMember(holder: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(holder, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else holder[key] = value;
}

/**
 * `value` as the trail keeps it at `place`: numbers, booleans and nulls as they are, strings only
 * when enumerated or dates, objects and arrays member by member.
 */
function keptValue(place: Place, value: unknown): unknown {
  if (typeof value === 'string') return place.keeps(value) ? value : typedText(value);
  if (Array.isArray(value)) {
    const items = place.items();
    return value.map((item) => keptValue(items, item));
  }
  if (typeof value === 'object' && value !== null) {
    const kept: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value))
      putMember(kept, key, keptValue(place.member(key), member));
    return kept;
  }
  return value;
}

/**
 * A report query as the trail keeps it: its metric and dimension keys when the report ran (they
 * were then the catalog's), else their lengths; a filter's values as their lengths (a supplier,
 * a site, whatever a person typed to narrow it), numbers aside; the rest (grain, range, order's
 * direction, operators, limit) as it is.
 */
export function keptQuery(query: unknown, answered: boolean): unknown {
  const kept = keptValue(QUERY_PLACE, query);
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
  const place = schema ? inputPlaceOf(schema) : NOWHERE;
  const idParams = operation?.idParams;
  for (const [key, value] of Object.entries(input)) {
    if (key === 'cursor' || value === undefined) continue;
    // An own entry only: `__proto__` or `constructor` names no id parameter.
    const kind = idParams && Object.hasOwn(idParams, key) ? idParams[key] : undefined;
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
    else putMember(params, key, keptValue(place.member(key), value));
  }
  return { params, claims };
}
