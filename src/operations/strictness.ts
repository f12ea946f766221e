import type { ErrorObject } from 'ajv';
import type { TObject } from 'typebox';
import { ERRORS } from '../errors.js';

/**
 * The text of a strictness 404 (SPEC "Errors", DESIGN §4.2): which parameter or member broke
 * which rule, the rule written from the schema that validated it (type, range, length, allowed
 * values), so a client or an agent can correct its request. The value given is never repeated,
 * nor is a name the client made up: an unknown parameter or member is "an unknown parameter"
 * with the allowed names beside it. Any client text is hostile here (a prompt injection, a
 * marker the fuzz suite looks for), and a name of a safe shape can still be one, so none is
 * echoed. Names that appear are the schema's own; array positions are numbers.
 */

/** A JSON Schema as TypeBox writes it: plain members, read here only to describe them. */
type Schema = Readonly<Record<string, unknown>>;

/** What the input is: an operation's parameters (GET, MCP arguments alike) or its JSON body. */
export type InputForm = 'parameters' | 'body';

export interface Wording {
  form: InputForm;
  /** Parameters arrived as query-string text: integers must be written as plain digits. */
  queryString: boolean;
}

const isSchema = (value: unknown): value is Schema =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const quoted = (value: unknown) => JSON.stringify(value);

function range(min: unknown, max: unknown): string {
  if (typeof min === 'number' && typeof max === 'number') return ` from ${min} to ${max}`;
  if (typeof min === 'number') return ` of at least ${min}`;
  if (typeof max === 'number') return ` of at most ${max}`;
  return '';
}

/** "1 to 64 ", "at most 10 ", or "" when nothing bounds the count. */
function count(min: unknown, max: unknown): string {
  const low = typeof min === 'number' && min > 0 ? min : undefined;
  if (low !== undefined && typeof max === 'number') return `${low} to ${max} `;
  if (low !== undefined) return `at least ${low} `;
  if (typeof max === 'number') return `at most ${max} `;
  return '';
}

function describeString(schema: Schema): string {
  if (schema.format === 'date') return 'a calendar date written YYYY-MM-DD';
  const bounds = count(schema.minLength, schema.maxLength);
  const length = bounds ? ` of ${bounds}characters` : '';
  const format = typeof schema.format === 'string' ? ` in the ${schema.format} format` : '';
  const pattern = typeof schema.pattern === 'string' ? ` matching ${schema.pattern}` : '';
  return `text${length}${format}${pattern}`;
}

/** An object as `{a, b?, kind: "x"}`: required members bare, optional ones with `?`. */
function describeObject(schema: Schema): string {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const members = Object.entries(properties).map(([name, member]) => {
    const constant = isSchema(member) && 'const' in member ? `: ${quoted(member.const)}` : '';
    return `${name}${required.has(name) ? '' : '?'}${constant}`;
  });
  return members.length ? `an object {${members.join(', ')}}` : 'an empty object {}';
}

function describeUnion(branches: Schema[]): string {
  const constants = branches.filter((b) => 'const' in b);
  if (constants.length === branches.length)
    return `one of: ${constants.map((b) => String(b.const)).join(', ')}`;
  const others = branches.filter((b) => b.type !== 'null');
  const text = others.map(describeRule).join(' or ');
  return others.length < branches.length ? `${text}, or null` : text;
}

/** The rule a schema states, as text: "a whole number from 1 to 50", "one of: asc, desc". */
export function describeRule(schema: Schema): string {
  if ('const' in schema) return `exactly ${quoted(schema.const)}`;
  if (Array.isArray(schema.anyOf)) return describeUnion(schema.anyOf.filter(isSchema));
  switch (schema.type) {
    case 'integer':
      return `a whole number${range(schema.minimum, schema.maximum)}`;
    case 'number':
      return `a number${range(schema.minimum, schema.maximum)}`;
    case 'string':
      return describeString(schema);
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'array': {
      const distinct = schema.uniqueItems === true ? 'distinct ' : '';
      const each = isSchema(schema.items) ? `, each ${describeRule(schema.items)}` : '';
      return `a list of ${count(schema.minItems, schema.maxItems)}${distinct}items${each}`;
    }
    case 'object':
      return describeObject(schema);
    default:
      return 'a value of another shape';
  }
}

/** `/query/filters/0/values/2` → `query.filters[0].values[2]`. */
function dotted(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
}

function subject(pointer: string, { form }: Wording): string {
  if (pointer === '') return form === 'body' ? 'The body' : 'The parameters';
  return `${form === 'body' ? 'Member' : 'Parameter'} \`${dotted(pointer)}\``;
}

/** The JSON kind a branch of a union takes, to tell whether a value could be meant for it. */
function fits(branch: Schema, value: unknown): boolean {
  if ('const' in branch) return branch.const === value;
  switch (branch.type) {
    case 'null':
      return value === null;
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object': {
      if (!isSchema(value)) return false;
      // A member with a constant (`kind`) says which object of a union the value means to be.
      const properties = isSchema(branch.properties) ? branch.properties : {};
      return Object.entries(properties).every(
        ([name, member]) =>
          !isSchema(member) ||
          !('const' in member) ||
          (Object.hasOwn(value, name) && value[name] === member.const),
      );
    }
    default:
      return false;
  }
}

/**
 * The error to explain. Ajv (allErrors off) stops at the first failure, but a failed union
 * (anyOf) comes last, after the failure of each branch: when the value fits exactly one branch
 * by its kind (and its constant members, such as a period's `kind`), that branch's own failure
 * is the one to explain ("`period.offset` must be from -24 to 0"); otherwise the whole union is.
 */
function primary(errors: readonly ErrorObject[]): ErrorObject {
  const last = errors[errors.length - 1];
  const union = isSchema(last.parentSchema) ? last.parentSchema.anyOf : undefined;
  if (last.keyword !== 'anyOf' || !Array.isArray(union)) return last;
  const candidates = union.flatMap((branch, i) =>
    isSchema(branch) && fits(branch, last.data) ? [i] : [],
  );
  if (candidates.length !== 1) return last;
  const prefix = `${last.schemaPath}/${candidates[0]}/`;
  const own = errors.filter((e) => e.schemaPath.startsWith(prefix));
  return own.length ? primary(own) : last;
}

/**
 * A schema validation failure (Ajv with `verbose`, so each error carries its schema and value)
 * as one sentence naming the parameter or member and the rule it broke.
 */
export function violationMessage(errors: readonly ErrorObject[], wording: Wording): string {
  if (errors.length === 0) return ERRORS.not_found.message;
  const error = primary(errors);
  const schema = isSchema(error.parentSchema) ? error.parentSchema : {};
  const at = error.instancePath;
  if (error.keyword === 'additionalProperties')
    return unknownMemberMessage(schema, at === '' ? '' : subject(at, wording), wording.form);
  if (error.keyword === 'required') {
    const name = String((error.params as { missingProperty?: unknown }).missingProperty);
    const properties = isSchema(schema.properties) ? schema.properties : {};
    const member = Object.hasOwn(properties, name) ? properties[name] : undefined;
    const rule = isSchema(member) ? `: ${describeRule(member)}` : '';
    return `${subject(`${at}/${name}`, wording)} is required${rule}.`;
  }
  const digits =
    wording.queryString && schema.type === 'integer' ? ', written in plain decimal digits' : '';
  return `${subject(at, wording)} must be ${describeRule(schema)}${digits}.`;
}

function names(schema: Schema): string[] {
  return Object.keys(isSchema(schema.properties) ? schema.properties : {});
}

/** An unknown member of `schema` (the body or the parameters when `owner` is empty). */
function unknownMemberMessage(schema: Schema, owner: string, form: InputForm): string {
  const allowed = names(schema);
  if (owner === '' && form === 'parameters')
    return allowed.length
      ? `An unknown parameter was given; allowed: ${allowed.join(', ')}.`
      : 'This operation takes no parameters.';
  const what = owner === '' ? 'The body' : owner;
  return allowed.length
    ? `${what} has an unknown member; allowed: ${allowed.join(', ')}.`
    : `${what} takes no members.`;
}

/** A query parameter given twice (SPEC "Errors"); an unknown one is named as unknown. */
export function repeatedParameterMessage(input: TObject, name: string): string {
  if (!Object.hasOwn(input.properties, name))
    return unknownMemberMessage(input as unknown as Schema, '', 'parameters');
  return `Parameter \`${name}\` was given more than once; give each parameter at most once.`;
}

/** Query parameters on a POST, whose input is its JSON body alone. */
export const QUERY_ON_POST =
  'This operation takes no query parameters; send its input as a JSON body.';

/** A POST body that is not declared JSON, or is empty or not JSON at all. */
export const BODY_NOT_JSON =
  'The body must be a JSON object sent with the header Content-Type: application/json.';
export const BODY_EMPTY = 'The body is empty; send a JSON object.';
export const BODY_INVALID_JSON = 'The body is not valid JSON.';
export const BODY_FORBIDDEN_MEMBER =
  'The body has a member named __proto__ or constructor.prototype, which is never accepted.';
