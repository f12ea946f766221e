/** What a `$filter` or `$orderby` parses to: the trees the compilers to SQL read, and its errors. */

export type Literal =
  | { kind: 'null' }
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number; text: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'date'; value: string }
  | { kind: 'dateTimeOffset'; value: string };

export type ComparisonOperator = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';

/** Each comparison as SQL writes it (the compilers' one table). */
export const SQL_OPERATORS: Readonly<Record<ComparisonOperator, string>> = {
  eq: '=',
  ne: '<>',
  gt: '>',
  ge: '>=',
  lt: '<',
  le: '<=',
};
export const TEXT_FUNCTIONS = ['contains', 'startswith', 'endswith'] as const;
export type TextFunction = (typeof TEXT_FUNCTIONS)[number];

export type Expr =
  | { kind: 'or' | 'and'; left: Expr; right: Expr }
  | { kind: 'not'; operand: Expr }
  | { kind: 'compare'; op: ComparisonOperator; left: Expr; right: Expr }
  | { kind: 'in'; left: Expr; values: Literal[] }
  | { kind: 'call'; name: TextFunction; args: [Expr, Expr] }
  | { kind: 'property'; name: string }
  | { kind: 'literal'; literal: Literal };

export interface OrderItem {
  property: string;
  direction: 'asc' | 'desc';
}

/** A `$filter` or `$orderby` that does not parse: where (a character offset), never what. */
export class GrammarError extends Error {
  constructor(
    readonly offset: number,
    /** A known OData feature this service does not offer (501), rather than a malformed one. */
    readonly notOffered = false,
  ) {
    super(notOffered ? 'not offered' : 'malformed');
  }
}

/** The parsing filter-grammar.ts offers (as its `grammar`). */
export interface Grammar {
  parseFilter(text: string): Expr;
  parseOrderBy(text: string): OrderItem[];
}
