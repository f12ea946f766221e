import { createRequire } from 'node:module';

/**
 * What a `$filter` or `$orderby` parses to (the trees the compilers to SQL read), and the parsing
 * itself, which is the Chevrotain grammar of filter-grammar.ts loaded by the first `$filter` or
 * `$orderby` a process reads: Chevrotain's 50 modules and the parser's self-analysis are a tenth
 * of a second of a start, and most processes (the CLI's commands, most tests) never parse one.
 */

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
let grammar: Grammar | undefined;
// Loaded synchronously (Node's require of an ES module, which has no top-level await): parsing
// is a step of reading a request's options, which are read in one go.
const load = (): Grammar =>
  (grammar ??= (createRequire(import.meta.url)('./filter-grammar.js') as { grammar: Grammar })
    .grammar);

/** Loads the grammar now (`serve`, before it listens: a server's first `$filter` is warm). */
export const loadFilterGrammar = (): void => void load();

/** Whether this process has loaded the grammar. */
export const filterGrammarLoaded = (): boolean => grammar !== undefined;

/** A `$filter` expression as a tree, or GrammarError. */
export const parseFilter = (text: string): Expr => load().parseFilter(text);

/** An `$orderby` list, or GrammarError. */
export const parseOrderBy = (text: string): OrderItem[] => load().parseOrderBy(text);
