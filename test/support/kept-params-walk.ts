/**
 * What the trail kept of a value before its schema's places were worked out once (kept-params.ts,
 * issue 59): the walk of the schema made afresh for every value, kept as the oracle the places are
 * held to (test/audit/kept-places.test.ts).
 */
import type { TSchema } from 'typebox';
import { typedText } from '../../src/audit/kept-params.js';

function memberSchemas(schema: TSchema, key: string): TSchema[] {
  const own = (schema as { properties?: Record<string, TSchema> }).properties?.[key];
  const branches = (schema as { anyOf?: TSchema[] }).anyOf ?? [];
  return [...(own ? [own] : []), ...branches.flatMap((branch) => memberSchemas(branch, key))];
}

const CLOSED_FORMATS = new Set(['date', 'date-time']);

function isClosedString(schema: TSchema, value: string): boolean {
  const s = schema as { const?: unknown; enum?: unknown[]; format?: string; anyOf?: TSchema[] };
  if (s.const === value) return true;
  if (Array.isArray(s.enum) && s.enum.includes(value)) return true;
  if (s.format !== undefined && CLOSED_FORMATS.has(s.format)) return true;
  return (s.anyOf ?? []).some((branch) => isClosedString(branch, value));
}

/** `value` as the trail kept it under `schemas`, walking them afresh. */
export function walkedValue(schemas: TSchema[], value: unknown): unknown {
  if (typeof value === 'string')
    return schemas.some((schema) => isClosedString(schema, value)) ? value : typedText(value);
  if (Array.isArray(value)) {
    const items = schemas.flatMap((schema) => {
      const item = (schema as { items?: TSchema }).items;
      return item ? [item] : [];
    });
    return value.map((item) => walkedValue(items, item));
  }
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([key, member]) => [
        key,
        walkedValue(
          schemas.flatMap((schema) => memberSchemas(schema, key)),
          member,
        ),
      ]),
    );
  return value;
}

/** A member under `key` of a value of `schema`, as the trail kept it. */
export const walkedMember = (schema: TSchema, key: string, value: unknown) =>
  walkedValue(memberSchemas(schema, key), value);
