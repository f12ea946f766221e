import { createToken, EmbeddedActionsParser, Lexer, type IToken, type TokenType } from 'chevrotain';

/**
 * The `$filter` and `$orderby` grammar (OData 4.01 Part 2 §5.1.1, its ABNF's `boolCommonExpr`
 * and `orderby`), for the operators and functions DESIGN §4.18 offers, on Chevrotain: a lexer
 * and an LL(k) parser built from declared tokens and rules, not a hand-written scanner. Chevrotain
 * is maintained (releases through 2025), has no dependencies beyond its own packages, and reports
 * where input stops matching, which the 400's message gives as a position, never the text.
 *
 * Precedence, lowest first (Part 2 §5.1.1.15): `or`, `and`, `not`, comparisons (`eq ne gt ge lt
 * le in`, not chained), then operands: a parenthesised expression, a function call, a property, a
 * literal. `not` applies to the comparison after it (`not contains(a,'x')`, what Power Query sends).
 */

import {
  GrammarError,
  TEXT_FUNCTIONS,
  type ComparisonOperator,
  type Expr,
  type Literal,
  type OrderItem,
  type TextFunction,
  type Grammar,
} from './filter-tree.js';

const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t]+/, group: Lexer.SKIPPED });
const LParen = createToken({ name: 'LParen', pattern: /\(/ });
const RParen = createToken({ name: 'RParen', pattern: /\)/ });
const Comma = createToken({ name: 'Comma', pattern: /,/ });
const StringLiteral = createToken({ name: 'StringLiteral', pattern: /'(?:[^']|'')*'/ });
const DateTimeOffsetLiteral = createToken({
  name: 'DateTimeOffsetLiteral',
  pattern: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,12})?)?(?:Z|[+-]\d{2}:\d{2})/i,
});
const DateLiteral = createToken({ name: 'DateLiteral', pattern: /\d{4}-\d{2}-\d{2}/ });
const NumberLiteral = createToken({
  name: 'NumberLiteral',
  pattern: /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/,
});
const Identifier = createToken({ name: 'Identifier', pattern: /[A-Za-z_][A-Za-z0-9_]*/ });
const keyword = (word: string) =>
  createToken({ name: word, pattern: new RegExp(word), longer_alt: Identifier });
const Or = keyword('or');
const And = keyword('and');
const Not = keyword('not');
const In = keyword('in');
const Null = keyword('null');
const True = keyword('true');
const False = keyword('false');
const Asc = keyword('asc');
const Desc = keyword('desc');
const COMPARISONS = (['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const).map((op) => keyword(op));
const Comparison = createToken({ name: 'Comparison', pattern: Lexer.NA });
for (const token of COMPARISONS) (token as { CATEGORIES?: TokenType[] }).CATEGORIES = [Comparison];
/** Operators OData defines and this service does not offer: 501 rather than 400. */
const NotOffered = createToken({
  name: 'NotOffered',
  pattern: /has|add|sub|mul|divby|div|mod/,
  longer_alt: Identifier,
});

const TOKENS: TokenType[] = [
  WhiteSpace,
  LParen,
  RParen,
  Comma,
  StringLiteral,
  DateTimeOffsetLiteral,
  DateLiteral,
  NumberLiteral,
  Or,
  And,
  Not,
  In,
  Null,
  True,
  False,
  Asc,
  Desc,
  Comparison,
  ...COMPARISONS,
  NotOffered,
  Identifier,
];

const lexer = new Lexer(TOKENS, { positionTracking: 'onlyOffset', ensureOptimizations: false });

/** A DateTimeOffset literal as stored timestamps are written: UTC, milliseconds, `Z`. */
function utcTimestamp(text: string, offset: number): string {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new GrammarError(offset);
  return new Date(ms).toISOString();
}

function validDate(text: string, offset: number): string {
  const ms = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text)
    throw new GrammarError(offset);
  return text;
}

class FilterParser extends EmbeddedActionsParser {
  constructor() {
    super(TOKENS, { maxLookahead: 2 });
    this.performSelfAnalysis();
  }

  readonly orExpr = this.RULE('orExpr', (): Expr => {
    let left = this.SUBRULE(this.andExpr);
    this.MANY(() => {
      this.CONSUME(Or);
      const right = this.SUBRULE2(this.andExpr);
      left = { kind: 'or', left, right };
    });
    return left;
  });

  readonly andExpr = this.RULE('andExpr', (): Expr => {
    let left = this.SUBRULE(this.notExpr);
    this.MANY(() => {
      this.CONSUME(And);
      const right = this.SUBRULE2(this.notExpr);
      left = { kind: 'and', left, right };
    });
    return left;
  });

  readonly notExpr: () => Expr = this.RULE('notExpr', (): Expr =>
    this.OR([
      {
        ALT: () => {
          this.CONSUME(Not);
          return { kind: 'not', operand: this.SUBRULE(this.notExpr) } as Expr;
        },
      },
      { ALT: () => this.SUBRULE(this.comparison) },
    ]),
  );

  readonly comparison = this.RULE('comparison', (): Expr => {
    const left = this.SUBRULE(this.operand);
    return this.OR([
      {
        ALT: () => {
          const op = this.CONSUME(Comparison).image as ComparisonOperator;
          const right = this.SUBRULE2(this.operand);
          return { kind: 'compare', op, left, right } as Expr;
        },
      },
      {
        ALT: () => {
          this.CONSUME(In);
          this.CONSUME(LParen);
          const values: Literal[] = [];
          this.AT_LEAST_ONE_SEP({ SEP: Comma, DEF: () => values.push(this.SUBRULE(this.literal)) });
          this.CONSUME(RParen);
          return { kind: 'in', left, values } as Expr;
        },
      },
      { ALT: () => left },
    ]);
  });

  readonly operand: () => Expr = this.RULE('operand', (): Expr =>
    this.OR([
      {
        ALT: () => {
          this.CONSUME(LParen);
          const inner = this.SUBRULE(this.orExpr);
          this.CONSUME(RParen);
          return inner;
        },
      },
      { ALT: () => this.SUBRULE(this.memberOrCall) },
      { ALT: () => ({ kind: 'literal', literal: this.SUBRULE(this.literal) }) as Expr },
    ]),
  );

  readonly memberOrCall = this.RULE('memberOrCall', (): Expr => {
    const name = this.CONSUME(Identifier);
    const args: Expr[] = [];
    let called = false;
    this.OPTION(() => {
      this.CONSUME(LParen);
      called = true;
      this.MANY_SEP({ SEP: Comma, DEF: () => args.push(this.SUBRULE(this.orExpr)) });
      this.CONSUME(RParen);
    });
    if (!called) return { kind: 'property', name: name.image };
    return this.ACTION(() => callOf(name, args));
  });

  readonly literal = this.RULE('literal', (): Literal =>
    this.OR([
      { ALT: () => (this.CONSUME(Null), { kind: 'null' }) as Literal },
      { ALT: () => (this.CONSUME(True), { kind: 'boolean', value: true }) as Literal },
      { ALT: () => (this.CONSUME(False), { kind: 'boolean', value: false }) as Literal },
      {
        ALT: () => {
          const image = this.CONSUME(StringLiteral).image;
          return { kind: 'string', value: image.slice(1, -1).replace(/''/g, "'") } as Literal;
        },
      },
      {
        ALT: () => {
          const token = this.CONSUME(DateTimeOffsetLiteral);
          return this.ACTION(
            () =>
              ({
                kind: 'dateTimeOffset',
                value: utcTimestamp(token.image, token.startOffset),
              }) as Literal,
          );
        },
      },
      {
        ALT: () => {
          const token = this.CONSUME(DateLiteral);
          return this.ACTION(
            () => ({ kind: 'date', value: validDate(token.image, token.startOffset) }) as Literal,
          );
        },
      },
      {
        ALT: () => {
          const text = this.CONSUME(NumberLiteral).image;
          return { kind: 'number', value: Number(text), text } as Literal;
        },
      },
    ]),
  );

  readonly orderby = this.RULE('orderby', (): OrderItem[] => {
    const items: OrderItem[] = [];
    this.AT_LEAST_ONE_SEP({
      SEP: Comma,
      DEF: () => {
        const property = this.CONSUME(Identifier).image;
        let direction: 'asc' | 'desc' = 'asc';
        this.OPTION(() => {
          direction = this.OR([
            { ALT: () => (this.CONSUME(Asc), 'asc' as const) },
            { ALT: () => (this.CONSUME(Desc), 'desc' as const) },
          ]);
        });
        items.push({ property, direction });
      },
    });
    return items;
  });
}

/** OData's canonical functions this service does not offer: 501 rather than 400. */
const KNOWN_FUNCTIONS = new Set(
  (
    'tolower toupper trim length indexof substring concat matchesPattern year month day hour ' +
    'minute second fractionalseconds totalseconds date time totaloffsetminutes now maxdatetime ' +
    'mindatetime round floor ceiling cast isof any all hassubset hassubsequence case'
  ).split(' '),
);

function callOf(name: IToken, args: Expr[]): Expr {
  const fn = name.image;
  if ((TEXT_FUNCTIONS as readonly string[]).includes(fn) && args.length === 2)
    return { kind: 'call', name: fn as TextFunction, args: [args[0], args[1]] };
  throw new GrammarError(name.startOffset, KNOWN_FUNCTIONS.has(fn));
}

const parser = new FilterParser();

function parseWith<T>(text: string, rule: () => T): T {
  const lexed = lexer.tokenize(text);
  if (lexed.errors.length > 0) throw new GrammarError(lexed.errors[0].offset);
  const offered = lexed.tokens.find((t) => t.tokenType === NotOffered);
  if (offered) throw new GrammarError(offered.startOffset, true);
  parser.input = lexed.tokens;
  const result = rule();
  if (parser.errors.length > 0) {
    const token = parser.errors[0].token;
    throw new GrammarError(Number.isNaN(token.startOffset) ? text.length : token.startOffset);
  }
  return result;
}

/** A `$filter` expression as a tree, or GrammarError. */
export function parseFilter(text: string): Expr {
  return parseWith(text, () => parser.orExpr());
}

/** An `$orderby` list, or GrammarError. */
export function parseOrderBy(text: string): OrderItem[] {
  return parseWith(text, () => parser.orderby());
}

/** What filter-expression.ts loads this module for (by a dynamic import). */
export const grammar: Grammar = { parseFilter, parseOrderBy };
