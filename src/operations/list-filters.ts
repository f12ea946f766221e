import { Type, type TSchema } from 'typebox';
import { literals } from '../records/record.js';
import { PLAIN_ID, TEXT_LIMITS } from '../records/plain-values.js';
import type { ListCondition } from '../store/store.js';
import type { IdKind } from './operation.js';

/**
 * Filters on the resource lists (DESIGN §4.15): each one a parameter, checked by its schema like
 * any other (an unknown value, a bad date, a repeated or empty parameter: 404 `not_found`), and
 * the store's conditions for a value. Filters combine with AND, after visibility.
 */
export interface ListFilter {
  schema: TSchema;
  /** What the filter keeps, for the MCP tool's input schema and the OpenAPI document. */
  description: string;
  conditions(value: string): ListCondition[];
  /** The value is an id of this kind (the access trail keeps it only when it names one). */
  idOf?: IdKind;
  /** A rule beyond the schema, as the sentence a 404 `not_found` carries; null when kept. */
  rule?(value: string): string | null;
}

export type ListFilters = Readonly<Record<string, ListFilter>>;

/** An id, or an open set's value: what the importer lets into such a column. */
const PlainIdParam = Type.String({ pattern: PLAIN_ID.source });

/** A column that holds one of the listed values (an enumeration). */
export function equalTo(column: string, values: readonly string[]): ListFilter {
  return {
    schema: literals(values),
    description: 'Keeps only the records whose field of this name has exactly this value.',
    conditions: (value) => [{ is: 'equal', column, value }],
  };
}

/** A column of plain values (PLAIN_ID): ids of records of kind `idOf`, or an open set's codes. */
export function plainEqualTo(column: string, idOf: IdKind): ListFilter {
  return {
    schema: PlainIdParam,
    description: 'Keeps only the records whose field of this name has exactly this value.',
    conditions: (value) => [{ is: 'equal', column, value }],
    idOf,
  };
}

/** How many ids one `ids` filter names at most (DESIGN §4.15). */
export const MAX_IDS = 100;

const ONE_ID = PLAIN_ID.source.replace(/^\^|\$$/g, '');

/**
 * `ids`: 1 to MAX_IDS records by id, comma-separated (an id holds no comma), each of PLAIN_ID's
 * shape and none twice: a page that names its workers asks for their names in one request.
 * Matched on the table's primary key.
 */
export function oneOfIds(name: string, idOf: IdKind): ListFilter {
  return {
    schema: Type.String({ pattern: `^${ONE_ID}(?:,${ONE_ID}){0,${MAX_IDS - 1}}$` }),
    description: `Keeps only the records of these ids: 1 to ${MAX_IDS}, comma-separated, each once.`,
    conditions: (value) => [{ is: 'in', column: 'id', value }],
    idOf,
    rule: (value) => {
      const ids = value.split(',');
      return new Set(ids).size === ids.length
        ? null
        : `The parameter ${name} must name each id once.`;
    },
  };
}

/** The id parameters among a list's filters, and what they name. */
export function idParamsOf(filters: ListFilters): Record<string, IdKind> {
  return Object.fromEntries(
    Object.entries(filters).flatMap(([name, filter]) =>
      filter.idOf === undefined ? [] : [[name, filter.idOf]],
    ),
  );
}

/** An invoice number as printed: exact, any text a number column may hold. */
export const byNumber: ListFilter = {
  schema: Type.String({ minLength: 1, maxLength: TEXT_LIMITS.other }),
  description: 'Keeps only the invoice whose number is exactly this text (drafts have none).',
  conditions: (value) => [{ is: 'equal', column: 'number', value }],
};

/**
 * `supplierId`: a supplier's id as `list_suppliers` gives it, never its code; keeps the records
 * whose `supplierRef` is that supplier's code (a consolidated invoice, whose `supplierRef` is
 * null, is never kept). An id that names no supplier this token can list keeps nothing, at the
 * same cost whatever it names (store/sql/resource-sql.ts).
 */
export const bySupplier: ListFilter = {
  schema: PlainIdParam,
  description:
    "Keeps only the records of this supplier: its id as list_suppliers gives it (not its code); records whose supplierRef is that supplier's code.",
  conditions: (value) => [{ is: 'supplier', column: 'supplier_ref', value }],
  idOf: 'supplier',
};

const DateParam = Type.String({ format: 'date' });

/**
 * `periodFrom` / `periodTo`: records whose period overlaps `[periodFrom, periodTo]`, that is
 * whose period ends on or after `periodFrom` and starts on or before `periodTo`.
 */
export const PERIOD_FILTERS: ListFilters = {
  periodFrom: {
    schema: DateParam,
    description: 'Keeps only the records whose period ends on or after this date (YYYY-MM-DD).',
    conditions: (value) => [{ is: 'atLeast', column: 'period_end', value }],
  },
  periodTo: {
    schema: DateParam,
    description: 'Keeps only the records whose period starts on or before this date (YYYY-MM-DD).',
    conditions: (value) => [{ is: 'atMost', column: 'period_start', value }],
  },
};

/** The sentence a list's description ends with: its filters, by name. */
export function filtersSentence(filters: ListFilters): string {
  const names = Object.keys(filters);
  if (names.length === 0) return '';
  return ` Optional filters, combined with AND: ${names.join(', ')}; a cursor works only with the filters it was given with.`;
}

/** The given filters' values, in the declaration's order: what a cursor is bound to. */
export function givenFilters(
  filters: ListFilters,
  params: Readonly<Record<string, unknown>>,
): [string, string][] {
  return Object.keys(filters)
    .filter((name) => typeof params[name] === 'string')
    .map((name) => [name, params[name] as string]);
}

export function conditionsOf(filters: ListFilters, given: [string, string][]): ListCondition[] {
  return given.flatMap(([name, value]) => filters[name].conditions(value));
}

/**
 * Beyond the schema: a period that ends before it starts is refused, not answered empty; so is a
 * value a filter's own rule refuses (an id named twice).
 */
export function filterRules(
  filters: ListFilters,
  params: Readonly<Record<string, unknown>>,
): string | null {
  const { periodFrom, periodTo } = params;
  if (typeof periodFrom === 'string' && typeof periodTo === 'string' && periodFrom > periodTo)
    return 'The parameter periodFrom must be on or before periodTo.';
  for (const [name, value] of givenFilters(filters, params)) {
    const broken = filters[name].rule?.(value);
    if (broken) return broken;
  }
  return null;
}
