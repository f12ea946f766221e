import fc from 'fast-check';
import { hostileText, markedText, marker, nonCanonicalInteger } from './hostile-text.js';
import type { Json } from './json-mutations.js';

/**
 * Values drawn from an operation's input schema (the TypeBox JSON Schema of the registry), so
 * that every operation is fuzzed from its own definition and no operation is named here.
 */

export interface Schema {
  type?: string;
  const?: unknown;
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
}

/** Real strings (catalog keys, ids, cursors) for members of a given name, besides random ones. */
export type Pools = Record<string, string[]>;

const DAY = 86_400_000;
const FIRST = Date.UTC(2022, 0, 1);

/** A real calendar date between 2022 and 2027 (the seed spans 2023-07 to 2026-06). */
export const isoDate = fc
  .integer({ min: 0, max: 6 * 366 })
  .map((n) => new Date(FIRST + n * DAY).toISOString().slice(0, 10));

function stringValue(schema: Schema, pool: string[]): fc.Arbitrary<string> {
  if (schema.format === 'date') return isoDate;
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 1_000;
  const fits = (s: string) => s.length >= min && s.length <= max;
  const real = pool.filter(fits);
  const random = fc.oneof(markedText, hostileText, fc.string({ minLength: min, maxLength: 30 }));
  return real.length
    ? fc.oneof(fc.constantFrom(...real), random.filter(fits))
    : random.filter(fits);
}

/** Absent two times in three. */
export const sometimes = <T>(value: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });

/** A value the schema accepts (catalog keys and ids where the member's name asks for them). */
export function validValue(schema: Schema, pools: Pools, name = ''): fc.Arbitrary<Json> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => validValue(s, pools, name)));
  if ('const' in schema) return fc.constant(schema.const as Json);
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -5, max: schema.maximum ?? 2_000 });
    case 'string':
      return stringValue(schema, pools[name] ?? []);
    case 'array': {
      const item = validValue(schema.items ?? {}, pools, name);
      const length = {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      };
      return schema.uniqueItems
        ? fc.uniqueArray(item, { ...length, selector: (v) => JSON.stringify(v) })
        : fc.array(item, length);
    }
    case 'object': {
      // An optional member is sent one time in three: with every member at once, most report
      // queries would stop at the first cursor or period rule and never reach the engine.
      const members = Object.entries(schema.properties ?? {}).map(([key, s]) => {
        const value = validValue(s, pools, key);
        return [key, schema.required?.includes(key) ? value : sometimes(value)] as const;
      });
      return fc
        .record(Object.fromEntries(members))
        .map(
          (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Json,
        );
    }
    default:
      return fc.jsonValue() as fc.Arbitrary<Json>;
  }
}

const enumOf = (schema: Schema) =>
  schema.anyOf?.every((s) => typeof s.const === 'string')
    ? schema.anyOf.map((s) => s.const as string)
    : null;

/**
 * Query-string text the schema refuses under DESIGN §4.2: a non-canonical or out-of-range
 * integer, a value outside an enumeration, an empty or over-long string. Null if none exists.
 */
export function refusedQueryText(schema: Schema): fc.Arbitrary<string> | null {
  const values = enumOf(schema);
  if (values)
    return fc.oneof(
      marker,
      fc.constantFrom(...values).map((v) => v.toUpperCase()),
      fc.constantFrom(...values).map((v) => ` ${v}`),
      fc.constant(''),
    );
  if (schema.type === 'integer')
    return fc.oneof(
      nonCanonicalInteger,
      fc.constantFrom(
        'ten',
        '1.5',
        '',
        ...(schema.minimum !== undefined ? [String(schema.minimum - 1)] : []),
        ...(schema.maximum !== undefined ? [String(schema.maximum + 1)] : []),
      ),
    );
  if (schema.type === 'string') {
    const refused = [
      ...(schema.minLength ? [''] : []),
      ...(schema.maxLength !== undefined ? ['x'.repeat(schema.maxLength + 1)] : []),
    ];
    return refused.length ? fc.constantFrom(...refused) : null;
  }
  return null;
}
