import fc from 'fast-check';
import { isJson } from '../../src/http/json-body.js';
import { hostileText, marker } from './hostile-text.js';

/**
 * JSON bodies a client may send: mutations of a valid body (a member added, removed, replaced
 * or given another type, at any depth), hostile values, and text that is not JSON at all.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

function nodesOf(value: Json, path: Path = []): { path: Path; value: Json }[] {
  const children =
    value !== null && typeof value === 'object'
      ? Object.entries(value).flatMap(([k, v]) =>
          nodesOf(v, [...path, Array.isArray(value) ? Number(k) : k]),
        )
      : [];
  return [{ path, value }, ...children];
}

/** A copy of `root` with the node at `path` replaced, or removed when `replacement` is undefined. */
function withNode(root: Json, path: Path, replacement: Json | undefined): Json | undefined {
  if (path.length === 0) return replacement;
  const copy = structuredClone(root) as Record<string | number, Json>;
  const parent = path.slice(0, -1).reduce<Json>((node, key) => (node as never)[key], copy);
  const last = path[path.length - 1];
  if (replacement !== undefined) (parent as Record<string | number, Json>)[last] = replacement;
  else if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete (parent as Record<string, Json>)[last];
  return copy;
}

/** A value of another JSON type than `value`: refused wherever the schema allows one type only. */
export function otherKind(value: Json, pick: number): Json {
  const kindOf = (v: Json) => (Array.isArray(v) ? 'array' : typeof v);
  const others = (['1', 1, true, [], {}] as Json[]).filter((k) => kindOf(k) !== kindOf(value));
  return others[pick % others.length];
}

/** Arrays nested this deep: a parser or validator that recurses may fall over. */
export const deepArray = fc
  .integer({ min: 50, max: 2_000 })
  .map((depth) => JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as Json);

/** Any JSON value a hostile client may put where a member goes. */
export const hostileJson: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: hostileText },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  fc.constantFrom<Json>(1e308, -0, 2 ** 53 + 2, 1.5, -1, 0, true, null, [], {}),
  deepArray,
);

/** Names of members no schema has, and names that trouble JavaScript objects. */
export const unknownKey = fc.oneof(
  marker,
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', '', 'extra'),
);

export type Mutation = 'add' | 'remove' | 'replace' | 'retype';

/** `base` with one mutation at one of its nodes, chosen by `at` (any natural number). */
export function mutate(
  base: Json,
  mutation: Mutation,
  at: number,
  key: string,
  value: Json,
): Json | undefined {
  const nodes = nodesOf(base);
  if (mutation === 'add') {
    const target = nodes.filter(
      (n) => n.value !== null && typeof n.value === 'object' && !Array.isArray(n.value),
    );
    if (target.length === 0) return [base, value]; // no object to add to: wrap the value
    const node = target[at % target.length];
    // defineProperty, so that `__proto__` becomes a member and not the prototype.
    const copy = structuredClone(node.value) as Record<string, Json>;
    Object.defineProperty(copy, key, { value, enumerable: true, writable: true });
    return withNode(base, node.path, copy);
  }
  const inner = mutation === 'replace' ? nodes : nodes.slice(1);
  if (inner.length === 0) return value;
  const node = inner[at % inner.length];
  if (mutation === 'remove') return withNode(base, node.path, undefined);
  return withNode(base, node.path, mutation === 'retype' ? otherKind(node.value, at) : value);
}

/** A mutation of a valid body: what strictness must refuse or the operation must survive. */
export function mutatedJson(base: Json): fc.Arbitrary<Json | undefined> {
  return fc
    .tuple(
      fc.constantFrom<Mutation>('add', 'remove', 'replace', 'retype'),
      fc.nat(),
      unknownKey,
      hostileJson,
    )
    .map(([mutation, at, key, value]) => mutate(base, mutation, at, key, value));
}

const NOT_JSON = [
  '',
  ' ',
  '{',
  '[',
  '{"jsonrpc":"2.0",}',
  "{'a':1}",
  '{a:1}',
  'NaN',
  'undefined',
  '{"a":1}{"b":2}',
  '"unterminated',
  '{"a":"\u0000"}',
  '{"a":1e}',
  '\u0000',
];

/** Text that JSON.parse refuses: a valid body cut short or with garbage after it, and classics. */
export function notJson(validText: string): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.nat().map((n) => validText.slice(0, n % validText.length)),
      fc
        .tuple(fc.constantFrom('}', ',', 'x', ']', '\u0000'), marker)
        .map(([g, m]) => validText + g + m),
      marker.map((m) => `{"${m}":`),
      fc.constantFrom(...NOT_JSON),
    )
    .filter((text) => !isJson(text));
}
