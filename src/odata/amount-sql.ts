import currencyCodes from 'currency-codes';
import { SQL_OPERATORS, type ComparisonOperator } from './filter-expression.js';

/**
 * An amount (`total`, `amount`, …: cents over the currency's minor units, DESIGN §4.18) compared
 * with a number, as a predicate on its cents column: each row's currency decides the scale, so
 * the number is shifted to each scale exactly (decimal text, no floating point) and compared with
 * the cents as an integer; where the shift leaves a fraction no integer equals it (`eq` false,
 * `ne` true) and the bound rounds the way that keeps the comparison (`gt 1.5` is `gt 1`).
 * Currency codes come from the ISO 4217 list (code, never a request); the numbers are bound.
 */

/** Currencies whose minor units are not 2, by their digits (ISO 4217, the currency-codes list). */
const BY_DIGITS: ReadonlyMap<number, readonly string[]> = (() => {
  const groups = new Map<number, string[]>();
  for (const { code, digits } of currencyCodes.data)
    if (/^[A-Z]{3}$/.test(code) && Number.isInteger(digits) && digits !== 2)
      groups.set(digits, [...(groups.get(digits) ?? []), code]);
  return groups;
})();

/** `text` (a number literal) times 10^scale as an integer, and whether that was exact. */
export function shifted(text: string, scale: number): { value: bigint; exact: boolean } {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) throw new RangeError('not a number literal');
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent) + scale;
  const kept = point <= 0 ? '0' : digits.padEnd(point, '0').slice(0, point);
  const dropped = point <= 0 ? digits : digits.slice(Math.max(point, 0));
  const magnitude = BigInt(kept);
  const exact = !/[1-9]/.test(dropped);
  // Toward minus infinity, so that a negative number's bound rounds as a positive one's does.
  const value = sign === '-' ? -magnitude - (exact ? 0n : 1n) : magnitude;
  return { value, exact };
}

/** `c op literal` for one scale: SQL over the cents column and its bound value, or a constant. */
function atScale(cents: string, op: ComparisonOperator, text: string, scale: number) {
  const { value, exact } = shifted(text, scale);
  if (!exact) {
    if (op === 'eq') return { sql: '1 = 0', params: [] };
    if (op === 'ne') return { sql: '1 = 1', params: [] };
  }
  // `value` is the floor: `gt`/`le` compare with it; `ge`/`lt` with the next integer when inexact.
  const bound = exact || op === 'gt' || op === 'le' ? value : value + 1n;
  if (bound > BigInt(Number.MAX_SAFE_INTEGER) || bound < -BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError('out of range');
  return { sql: `${cents} ${SQL_OPERATORS[op]} ?`, params: [Number(bound)] };
}

export function amountPredicate(
  cents: string,
  currency: string,
  op: ComparisonOperator,
  text: string,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  let sql = 'CASE';
  for (const [digits, codes] of BY_DIGITS) {
    const branch = atScale(cents, op, text, digits);
    sql += ` WHEN ${currency} IN (${codes.map((c) => `'${c}'`).join(', ')}) THEN (${branch.sql})`;
    params.push(...branch.params);
  }
  const otherwise = atScale(cents, op, text, 2);
  params.push(...otherwise.params);
  return { sql: `${sql} ELSE (${otherwise.sql}) END`, params };
}
