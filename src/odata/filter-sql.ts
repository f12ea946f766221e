import type { Dialect } from '../store/dialect.js';
import type { Predicate } from '../store/store.js';
import type { EntityProperty } from './entity-model.js';
import {
  SQL_OPERATORS,
  type ComparisonOperator,
  type Expr,
  type Literal,
} from './filter-expression.js';
import { amountPredicate } from './amount-sql.js';

/** The column an amount's currency is read from (every record with amounts has `currency`). */
const CURRENCY_COLUMN = 'currency';

/**
 * A `$filter` tree compiled to a predicate on the rows of the listed table (`t`), through the
 * store's dialect. Only code writes SQL text: column names come from the record definitions,
 * operators from a fixed table, and every value a client wrote is a bound parameter (`?`). The
 * statement's text depends on the tree's shape alone, never on its literals
 * (test/odata/filter-property.test.ts).
 *
 * OData's logic is two-valued (Part 2 §5.1.1.1): a comparison with null is true or false, never
 * unknown, so `not (x gt 5)` keeps a row whose x is null. Each comparison on a nullable column is
 * written so that it is never NULL in SQL, and then AND, OR and NOT agree with OData's.
 */

/** A filter a client wrote that this set cannot answer: 400, the message written by the service. */
export class FilterError extends Error {}

const FLIPPED: Record<ComparisonOperator, ComparisonOperator> = {
  eq: 'eq',
  ne: 'ne',
  gt: 'lt',
  ge: 'le',
  lt: 'gt',
  le: 'ge',
};

const FALSE = '1 = 0';
const TRUE = '1 = 1';

interface Compiled {
  sql: string;
  params: unknown[];
}

/** What a literal of each kind may be compared with. */
const COMPARABLE: Record<Literal['kind'], readonly string[]> = {
  null: [],
  string: ['Edm.String'],
  number: ['Edm.Int32', 'Edm.Int64'],
  boolean: ['Edm.Boolean'],
  date: ['Edm.Date'],
  dateTimeOffset: ['Edm.DateTimeOffset'],
};

const UNKNOWN_PROPERTY =
  'The $filter names a property this set does not have, or one it cannot filter by.';
const MISMATCH = 'The $filter compares values of different types.';
const NOT_BOOLEAN = 'The $filter is not a condition: each part must be true or false.';

class FilterCompiler {
  constructor(
    private readonly property: (name: string) => EntityProperty | undefined,
    private readonly dialect: Dialect,
  ) {}

  private column(name: string): EntityProperty {
    const property = this.property(name);
    if (!property || !property.filterable) throw new FilterError(UNKNOWN_PROPERTY);
    return property;
  }

  condition(expr: Expr): Compiled {
    switch (expr.kind) {
      case 'or':
      case 'and': {
        const left = this.condition(expr.left);
        const right = this.condition(expr.right);
        const joiner = expr.kind === 'or' ? 'OR' : 'AND';
        return {
          sql: `(${left.sql} ${joiner} ${right.sql})`,
          params: [...left.params, ...right.params],
        };
      }
      case 'not': {
        const inner = this.condition(expr.operand);
        return { sql: `NOT (${inner.sql})`, params: inner.params };
      }
      case 'compare':
        return this.compare(expr.op, expr.left, expr.right);
      case 'in':
        return this.within(expr.left, expr.values);
      case 'call':
        return this.textCall(expr);
      case 'property': {
        const property = this.column(expr.name);
        if (property.type !== 'Edm.Boolean') throw new FilterError(NOT_BOOLEAN);
        return { sql: `t.${property.column} = ?`, params: [1] };
      }
      case 'literal':
        if (expr.literal.kind !== 'boolean') throw new FilterError(NOT_BOOLEAN);
        return { sql: expr.literal.value ? TRUE : FALSE, params: [] };
    }
  }

  private compare(op: ComparisonOperator, left: Expr, right: Expr): Compiled {
    if (left.kind === 'literal' && right.kind !== 'literal')
      return this.compare(FLIPPED[op], right, left);
    if (left.kind === 'property' && right.kind === 'literal')
      return this.propertyAgainst(this.column(left.name), op, right.literal);
    if (left.kind === 'property' && right.kind === 'property')
      return this.propertyAgainstProperty(this.column(left.name), op, this.column(right.name));
    // A condition compared with true or false (`contains(a,'x') eq false`).
    if (
      right.kind === 'literal' &&
      right.literal.kind === 'boolean' &&
      (op === 'eq' || op === 'ne')
    ) {
      const inner = this.condition(left);
      return right.literal.value === (op === 'eq')
        ? inner
        : { sql: `NOT (${inner.sql})`, params: inner.params };
    }
    throw new FilterError(MISMATCH);
  }

  private propertyAgainst(p: EntityProperty, op: ComparisonOperator, literal: Literal): Compiled {
    const c = `t.${p.column}`;
    if (literal.kind === 'null') {
      if (op === 'eq') return { sql: `${c} IS NULL`, params: [] };
      if (op === 'ne') return { sql: `${c} IS NOT NULL`, params: [] };
      return { sql: FALSE, params: [] };
    }
    if (p.amountOf !== undefined) return this.amountAgainst(p, op, literal);
    if (!COMPARABLE[literal.kind].includes(p.type)) throw new FilterError(MISMATCH);
    let value = valueOf(literal);
    if (literal.kind === 'number') {
      const whole = wholeComparison(op, literal.value);
      // Null meets `ne` too: an answer that holds for every value holds for every row.
      if (typeof whole === 'boolean') return { sql: whole ? TRUE : FALSE, params: [] };
      [op, value] = whole;
    }
    const compared = `${c} ${SQL_OPERATORS[op]} ?`;
    if (!p.nullable) return { sql: compared, params: [value] };
    // Null is not equal to any value (so `ne` keeps it) and neither greater nor less than one.
    return op === 'ne'
      ? { sql: `(${c} IS NULL OR ${compared})`, params: [value] }
      : { sql: `(${c} IS NOT NULL AND ${compared})`, params: [value] };
  }

  /** An amount against a number: its cents at each row's currency's scale (amount-sql.ts). */
  private amountAgainst(p: EntityProperty, op: ComparisonOperator, literal: Literal): Compiled {
    if (literal.kind !== 'number') throw new FilterError(MISMATCH);
    let compared: Compiled;
    try {
      compared = amountPredicate(`t.${p.column}`, `t.${CURRENCY_COLUMN}`, op, literal.text);
    } catch {
      throw new FilterError('The $filter compares an amount with a number out of range.');
    }
    if (!p.nullable) return compared;
    const c = `t.${p.column}`;
    return op === 'ne'
      ? { sql: `(${c} IS NULL OR ${compared.sql})`, params: compared.params }
      : { sql: `(${c} IS NOT NULL AND ${compared.sql})`, params: compared.params };
  }

  private propertyAgainstProperty(
    a: EntityProperty,
    op: ComparisonOperator,
    b: EntityProperty,
  ): Compiled {
    // Amounts of two rows' currencies are not comparable in SQL as stored: their cents are.
    if (a.type !== b.type || a.amountOf !== undefined || b.amountOf !== undefined)
      throw new FilterError(MISMATCH);
    const [x, y] = [`t.${a.column}`, `t.${b.column}`];
    const compared = `${x} ${SQL_OPERATORS[op]} ${y}`;
    const bothSet = `${x} IS NOT NULL AND ${y} IS NOT NULL`;
    if (op === 'eq')
      return {
        sql: `((${bothSet} AND ${compared}) OR (${x} IS NULL AND ${y} IS NULL))`,
        params: [],
      };
    if (op === 'ne')
      return {
        sql: `NOT ((${bothSet} AND ${x} = ${y}) OR (${x} IS NULL AND ${y} IS NULL))`,
        params: [],
      };
    return { sql: `(${bothSet} AND ${compared})`, params: [] };
  }

  private within(left: Expr, values: Literal[]): Compiled {
    if (left.kind !== 'property') throw new FilterError(MISMATCH);
    const p = this.column(left.name);
    const listed = values.filter((v) => v.kind !== 'null');
    for (const v of listed) {
      if (!COMPARABLE[v.kind].includes(p.type)) throw new FilterError(MISMATCH);
      if (v.kind === 'number' && !Number.isSafeInteger(v.value)) throw new FilterError(MISMATCH);
    }
    const c = `t.${p.column}`;
    const parts: string[] = [];
    if (listed.length > 0) {
      const list = `${c} IN (${listed.map(() => '?').join(', ')})`;
      parts.push(p.nullable ? `(${c} IS NOT NULL AND ${list})` : list);
    }
    if (listed.length < values.length) parts.push(`${c} IS NULL`);
    return { sql: `(${parts.join(' OR ')})`, params: listed.map(valueOf) };
  }

  private textCall(expr: Extract<Expr, { kind: 'call' }>): Compiled {
    const [subject, search] = expr.args;
    if (
      subject.kind !== 'property' ||
      search.kind !== 'literal' ||
      search.literal.kind !== 'string'
    )
      throw new FilterError(
        `The $filter's ${expr.name} takes a text property and a text literal, in that order.`,
      );
    const p = this.column(subject.name);
    if (p.type !== 'Edm.String') throw new FilterError(MISMATCH);
    const c = `t.${p.column}`;
    const needle = search.literal.value;
    // Lengths in characters (code points), as both databases count them in text.
    const length = [...needle].length;
    let test: Compiled;
    if (expr.name === 'contains')
      test = { sql: `${this.dialect.textPosition(c, '?')} > 0`, params: [needle] };
    else if (expr.name === 'startswith')
      test = { sql: `substr(${c}, 1, ?) = ?`, params: [length, needle] };
    else
      test = {
        sql: `length(${c}) >= ? AND substr(${c}, length(${c}) - ? + 1) = ?`,
        params: [length, length, needle],
      };
    return { sql: `(${c} IS NOT NULL AND ${test.sql})`, params: test.params };
  }
}

/** A literal's value as bound: booleans as the stored 0 and 1. */
function valueOf(literal: Literal): unknown {
  switch (literal.kind) {
    case 'boolean':
      return literal.value ? 1 : 0;
    case 'null':
      return null;
    default:
      return literal.value;
  }
}

/**
 * An integer column compared with a number: the same comparison with a whole number (`x gt 1.5`
 * is `x gt 1`), or the answer itself when no integer can meet it (`x eq 1.5`: false; `ne`: true).
 */
function wholeComparison(
  op: ComparisonOperator,
  value: number,
): [ComparisonOperator, number] | boolean {
  if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER)
    throw new FilterError(
      'The $filter compares a whole-number property with a number out of range.',
    );
  if (Number.isInteger(value)) return [op, value];
  switch (op) {
    case 'eq':
      return false;
    case 'ne':
      return true;
    case 'gt':
    case 'le':
      return [op, Math.floor(value)];
    case 'ge':
    case 'lt':
      return [op, Math.ceil(value)];
  }
}

/**
 * The predicate of a `$filter` on a set whose properties `property` finds (those the token sees
 * and may filter by), rendered in the store's dialect when the store reads.
 */
export function filterPredicate(
  expr: Expr,
  property: (name: string) => EntityProperty | undefined,
): Predicate {
  // Checked now (400 before any read), rendered again by the store in its dialect.
  const check = new FilterCompiler(property, CHECKING_DIALECT).condition(expr);
  void check;
  return (dialect) => new FilterCompiler(property, dialect).condition(expr);
}

/** Only its text functions are used while checking; the SQL made then is thrown away. */
const CHECKING_DIALECT = {
  textPosition: (a: string, b: string) => `position(${b}, ${a})`,
} as Dialect;
