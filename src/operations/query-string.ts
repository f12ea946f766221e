import type { TObject } from 'typebox';

/** DESIGN §4.2: `0x10`, `1e1`, `+1`, `01`, `1.0`, padded or non-ASCII digits are not integers. */
const CANONICAL_INTEGER = /^(0|[1-9][0-9]*)$/;

/**
 * Query parameters arrive as text; this types them as the operation's schema says, by one rule
 * for every integer parameter: a canonical decimal becomes a number, anything else stays text
 * and so fails validation (404). No other coercion happens.
 */
export function typedQuery(schema: TObject, query: Readonly<Record<string, unknown>>) {
  const typed: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) {
    const property = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
    const isInteger = (property as { type?: unknown } | undefined)?.type === 'integer';
    typed[name] =
      isInteger && typeof value === 'string' && CANONICAL_INTEGER.test(value)
        ? Number(value)
        : value;
  }
  return typed;
}
