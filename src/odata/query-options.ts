import { ApiError } from '../errors.js';
import {
  GrammarError,
  parseFilter,
  parseOrderBy,
  type Expr,
  type OrderItem,
} from './filter-expression.js';

/**
 * The query string of an OData request as options (DESIGN §4.18): each known system query option
 * once, nothing else but `api_key`. An option outside these, repeated, or malformed is 400
 * `bad_request`; one OData defines and this service does not offer is 501 `not_implemented`.
 * Never ignored. Messages name the option and the rule, never the text sent.
 */

export type OptionName =
  | '$select'
  | '$filter'
  | '$orderby'
  | '$top'
  | '$skip'
  | '$count'
  | '$expand'
  | '$skiptoken'
  | '$deltatoken'
  | '$format';

/** System query options OData defines that this service does not offer. */
const NOT_OFFERED = new Set([
  '$apply',
  '$search',
  '$compute',
  '$index',
  '$levels',
  '$schemaversion',
  '$id',
]);

/** `$skip` at most (DESIGN §4.18): deeper reads follow nextLinks. */
export const MAX_SKIP = 10_000;

export interface RawOptions {
  options: Partial<Record<OptionName, string>>;
  /** The key given in the URL (Power BI's "Web API key"), read once and kept apart. */
  apiKey: string | undefined;
}

/** An error of the OData feed that names the query option it is about (`error.target`). */
export class ODataError extends ApiError {
  constructor(
    code: 'bad_request' | 'not_implemented' | 'not_found' | 'invalid_cursor' | 'cursor_expired',
    message: string,
    target?: string,
  ) {
    super(code, {}, message);
    this.target = target;
  }
}

export const badRequest = (message: string, target?: string) =>
  new ODataError('bad_request', message, target);
export const notOffered = (message: string) => new ODataError('not_implemented', message);

/** The options a collection takes. */
export const COLLECTION_OPTIONS: readonly OptionName[] = [
  '$select',
  '$filter',
  '$orderby',
  '$top',
  '$skip',
  '$count',
  '$expand',
  '$skiptoken',
  '$deltatoken',
  '$format',
];

const OPTION_NAMES = new Set<string>(COLLECTION_OPTIONS);

/**
 * Splits the query string by hand, not with URLSearchParams: `+` is a literal plus in OData URLs
 * (a DateTimeOffset's offset), never a space.
 */
export function readOptions(query: string, allowed: readonly OptionName[]): RawOptions {
  const options: RawOptions['options'] = {};
  let apiKey: string | undefined;
  if (query === '') return { options, apiKey };
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(at < 0 ? pair : pair.slice(0, at));
      value = at < 0 ? '' : decodeURIComponent(pair.slice(at + 1));
    } catch {
      throw badRequest('The query string is not valid percent-encoded UTF-8.');
    }
    if (name === 'api_key') {
      if (apiKey !== undefined) throw badRequest('api_key is given more than once.');
      apiKey = value;
      continue;
    }
    if (NOT_OFFERED.has(name)) throw notOffered(`The query option ${name} is not offered.`);
    if (!OPTION_NAMES.has(name) || !(allowed as readonly string[]).includes(name))
      throw badRequest(
        'The query string has an option this resource does not take (only OData system query options it offers, and api_key).',
      );
    const known = name as OptionName;
    if (options[known] !== undefined) throw badRequest(`${known} is given more than once.`, known);
    options[known] = value;
  }
  return { options, apiKey };
}

/** The `api_key` of a query string whose options are wrong (judged once the key is): '' if repeated. */
export function apiKeyOf(query: string): string | undefined {
  const keys = query.split('&').filter((pair) => pair.startsWith('api_key='));
  if (keys.length !== 1) return keys.length === 0 ? undefined : '';
  try {
    return decodeURIComponent(keys[0].slice('api_key='.length));
  } catch {
    return '';
  }
}

const NON_NEGATIVE = /^(0|[1-9][0-9]{0,8})$/;

export function integerOption(name: '$top' | '$skip', text: string): number {
  if (!NON_NEGATIVE.test(text)) throw badRequest(`${name} must be a non-negative integer.`, name);
  return Number(text);
}

export function countOption(text: string): boolean {
  if (text !== 'true' && text !== 'false')
    throw badRequest('$count must be true or false.', '$count');
  return text === 'true';
}

/** `$format`: JSON only (and XML for $metadata, told by the caller). */
export function formatOption(text: string | undefined, xmlToo = false): 'json' | 'xml' | null {
  if (text === undefined) return null;
  const media = text.split(';')[0].trim().toLowerCase();
  if (media === 'json' || media === 'application/json') return 'json';
  if (xmlToo && (media === 'xml' || media === 'application/xml')) return 'xml';
  if (media === 'xml' || media === 'atom' || media === 'application/xml')
    throw notOffered('Only the JSON format is offered here.');
  throw badRequest('$format must be json.', '$format');
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `$select`: property names, or `*` for all. */
export function selectOption(text: string): string[] | '*' {
  const names = text.split(',').map((n) => n.trim());
  if (names.includes('*')) return '*';
  if (names.some((n) => !NAME.test(n)))
    throw badRequest('$select must be a comma-separated list of property names.', '$select');
  return [...new Set(names)];
}

export interface ExpandItem {
  navigation: string;
  select: string[] | '*' | null;
}

/** `$expand`: navigation properties, each with an optional nested `($select=…)`. */
export function expandOption(text: string): ExpandItem[] {
  const items: ExpandItem[] = [];
  for (const part of splitTopLevel(text)) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)(?:\((.*)\))?$/.exec(part.trim());
    if (!match) throw badRequest('$expand must list navigation properties.', '$expand');
    let select: ExpandItem['select'] = null;
    if (match[2] !== undefined && match[2] !== '') {
      for (const nested of match[2].split(';')) {
        const at = nested.indexOf('=');
        const name = nested.slice(0, at < 0 ? nested.length : at);
        if (name === '$select' && at > 0 && select === null)
          select = selectOption(nested.slice(at + 1));
        else if (OPTION_NAMES.has(name) || NOT_OFFERED.has(name) || name === '$levels')
          throw notOffered('Within $expand only a nested $select is offered.');
        else throw badRequest('$expand has a malformed nested option.', '$expand');
      }
    }
    items.push({ navigation: match[1], select });
  }
  return items;
}

/** Commas outside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
    if (depth < 0) throw badRequest('$expand has unbalanced parentheses.', '$expand');
  }
  if (depth !== 0) throw badRequest('$expand has unbalanced parentheses.', '$expand');
  parts.push(text.slice(start));
  return parts;
}

function grammar<T>(name: '$filter' | '$orderby', parse: (text: string) => T, text: string): T {
  try {
    return parse(text);
  } catch (error) {
    if (!(error instanceof GrammarError)) throw error;
    if (error.notOffered)
      throw notOffered(
        `The ${name} uses an operator or function this service does not offer (at character ${error.offset + 1}).`,
      );
    throw badRequest(`The ${name} does not parse at character ${error.offset + 1}.`, name);
  }
}

export const filterOption = (text: string): Expr => grammar('$filter', parseFilter, text);
export const orderbyOption = (text: string): OrderItem[] => grammar('$orderby', parseOrderBy, text);
