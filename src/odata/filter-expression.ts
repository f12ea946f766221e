import type { Expr, Grammar, OrderItem } from './filter-tree.js';

export * from './filter-tree.js';

/**
 * Parsing a `$filter` or `$orderby`, by the Chevrotain grammar of filter-grammar.ts, which a
 * process loads with its first request that has either (the feed's handler awaits
 * `loadFilterGrammar`) or before `serve` listens: Chevrotain's 50 modules and the parser's
 * self-analysis are a tenth of a second of a start, and most processes (the CLI's commands, most
 * tests) never parse one. A dynamic import, which the CLI's bundle keeps as a chunk of its own.
 */
let grammar: Grammar | undefined;
let loading: Promise<Grammar> | undefined;

/** Loads the grammar, once. */
export function loadFilterGrammar(): Promise<Grammar> {
  return (loading ??= import('./filter-grammar.js').then((module) => (grammar = module.grammar)));
}

/** Whether this process has loaded the grammar. */
export const filterGrammarLoaded = (): boolean => grammar !== undefined;

function loaded(): Grammar {
  if (grammar === undefined)
    throw new Error('the $filter grammar is not loaded: await loadFilterGrammar() first');
  return grammar;
}

/** A `$filter` expression as a tree, or GrammarError (the grammar loaded). */
export const parseFilter = (text: string): Expr => loaded().parseFilter(text);

/** An `$orderby` list, or GrammarError (the grammar loaded). */
export const parseOrderBy = (text: string): OrderItem[] => loaded().parseOrderBy(text);
