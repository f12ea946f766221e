import type { TObject } from 'typebox';

/** DESIGN §4.2: `0x10`, `1e1`, `+1`, `01`, `1.0`, padded or non-ASCII digits are not integers. */
const CANONICAL_INTEGER = /^(0|[1-9][0-9]*)$/;

/**
 * Query parameters arrive as text; this types them as the operation's schema says, by one rule
 * for every integer parameter: a canonical decimal becomes a number, anything else stays text
 * and so fails validation (404). No other coercion happens.
 */
export function typedQuery(schema: TObject, query: Readonly<Record<string, unknown>>) {
  // fromEntries defines own members, so a parameter named __proto__ stays a parameter.
  return Object.fromEntries(
    Object.entries(query).map(([name, value]) => {
      const property = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
      const isInteger = (property as { type?: unknown } | undefined)?.type === 'integer';
      const typed =
        isInteger && typeof value === 'string' && CANONICAL_INTEGER.test(value)
          ? Number(value)
          : value;
      return [name, typed];
    }),
  );
}

/**
 * The query string as parameters: every name kept as given (`__proto__` and `constructor`
 * included, on an object without a prototype), a repeated name as an array of its values.
 */
export function parseQueryString(text: string): Record<string, string | string[]> {
  const parameters: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(text)) {
    const seen = parameters[name];
    parameters[name] =
      seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return parameters;
}
