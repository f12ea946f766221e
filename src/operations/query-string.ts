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
 * Parameters read from one query string at most. No operation takes more than four, so a query
 * string with more has an unknown or a repeated name among the first ones already, and is a 404
 * whatever follows: the rest is not read.
 */
export const MAX_QUERY_PARAMETERS = 64;

/**
 * The query string as parameters: every name kept as given (`__proto__` and `constructor`
 * included, on an object without a prototype), a repeated name as an array of its values. Linear
 * in the text (a name repeated thousands of times costs what as many different ones do).
 */
export function parseQueryString(text: string): Record<string, string | string[]> {
  const parameters: Record<string, string | string[]> = Object.create(null);
  let count = 0;
  for (const [name, value] of new URLSearchParams(text)) {
    if (++count > MAX_QUERY_PARAMETERS) break;
    const seen = parameters[name];
    if (seen === undefined) parameters[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else parameters[name] = [seen, value];
  }
  return parameters;
}
