import { PERSONAL_DATA_MARK, TRUST_MARK } from '../provenance.js';

/**
 * The trust marks of MCP (docs/mcp.md "Trust marks"), read off a tool's output schema once: where
 * its results can hold third-party text (a node marked `x-vms-trust`, a provenance envelope) and
 * personal data (a property marked `x-vms-personal-data`), as JSONPath templates rooted at
 * `structuredContent`, as the envelopes' own `source.path` is (`$.items[*].displayName` covers
 * `$.items[3].displayName`; `[*]` is any item of an array, `.*` any member of a map). The
 * templates go in the tool's `_meta`; each result's `_meta` says whether it holds either,
 * found by following only the templates into its data.
 */

/** The key of the marks in a tool's and in a result's `_meta`. */
export const TRUST_META = 'vms-read/trust';

/** Where a tool's results can hold each kind of marked value. */
export interface TrustTemplates {
  untrustedThirdPartyText: string[];
  personalData: string[];
}

/** Whether one result holds any provenance envelope, any personal field (present, not null). */
export interface ResultTrust {
  untrustedThirdPartyText: boolean;
  personalData: boolean;
}

/** One tool's templates, and the check of a result against them. */
export interface ToolTrust {
  templates: TrustTemplates;
  of(data: unknown): ResultTrust;
}

type Json = Record<string, unknown>;

/** A step of a template: a member by name, any item of an array, any member of a map. */
type Step = string | typeof ANY_ITEM | typeof ANY_MEMBER;
const ANY_ITEM = Symbol('[*]');
const ANY_MEMBER = Symbol('.*');

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keywords that would put values where this walk does not look: a schema using one is refused. */
const UNWALKED = ['$ref', '$dynamicRef', 'prefixItems', 'if', 'dependentSchemas'];

const memberPath = (name: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;

/**
 * Calls `visit` with every node of a JSON schema that a value can be checked against, and the
 * template of where in the value it applies (`$` the root): properties, array items, map members
 * (`additionalProperties`, `patternProperties`) and the branches of `anyOf`, `oneOf`, `allOf`.
 * `visit` returns false to go no deeper.
 */
export function visitSchema(
  schema: unknown,
  visit: (node: Json, path: string, steps: readonly Step[]) => boolean,
  path = '$',
  steps: readonly Step[] = [],
): void {
  if (!isObject(schema)) return;
  const refused = UNWALKED.find((keyword) => keyword in schema);
  if (refused) throw new Error(`trust marks: ${path} uses ${refused}, which is not walked`);
  if (!visit(schema, path, steps)) return;
  const into = (node: unknown, more: string, step: Step) =>
    visitSchema(node, visit, path + more, [...steps, step]);
  for (const [name, node] of Object.entries((schema.properties ?? {}) as Json))
    into(node, memberPath(name), name);
  into(schema.items, '[*]', ANY_ITEM);
  into(schema.additionalProperties, '.*', ANY_MEMBER);
  for (const node of Object.values((schema.patternProperties ?? {}) as Json))
    into(node, '.*', ANY_MEMBER);
  for (const keyword of ['anyOf', 'oneOf', 'allOf'])
    for (const node of (schema[keyword] ?? []) as unknown[]) visitSchema(node, visit, path, steps);
}

/** Whether some value at `steps` from `node` passes `test`. */
function holds(
  node: unknown,
  steps: readonly Step[],
  at: number,
  test: (v: unknown) => boolean,
): boolean {
  if (at === steps.length) return test(node);
  const step = steps[at];
  if (step === ANY_ITEM)
    return Array.isArray(node) && node.some((item) => holds(item, steps, at + 1, test));
  if (!isObject(node)) return false;
  if (step === ANY_MEMBER)
    return Object.values(node).some((member) => holds(member, steps, at + 1, test));
  return holds(node[step], steps, at + 1, test);
}

const isEnvelope = (value: unknown) => isObject(value) && value.kind === 'vms.provenance';
const isPresent = (value: unknown) => value !== undefined && value !== null;

/** The marks of a tool's output schema (plain JSON Schema, as published), read once. */
export function toolTrust(outputSchema: unknown): ToolTrust {
  // By template, so that a place reached through several branches of a union counts once.
  const envelopes = new Map<string, readonly Step[]>();
  const personal = new Map<string, readonly Step[]>();
  visitSchema(outputSchema, (node, path, steps) => {
    if (node[PERSONAL_DATA_MARK] === true) personal.set(path, steps);
    if (node[TRUST_MARK] !== 'untrusted-third-party') return true;
    envelopes.set(path, steps);
    return false;
  });
  const envelopeSteps = [...envelopes.values()];
  const personalSteps = [...personal.values()];
  return {
    templates: {
      untrustedThirdPartyText: [...envelopes.keys()],
      personalData: [...personal.keys()],
    },
    of: (data) => ({
      untrustedThirdPartyText: envelopeSteps.some((steps) => holds(data, steps, 0, isEnvelope)),
      personalData: personalSteps.some((steps) => holds(data, steps, 0, isPresent)),
    }),
  };
}

/** A result's `_meta`: what it holds, under the marks' key. */
export const resultMeta = (trust: ResultTrust) => ({ [TRUST_META]: trust });
