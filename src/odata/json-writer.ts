import currencyCodes from 'currency-codes';
import type { Row } from '../store/store.js';
import type { EntityProperty } from './entity-model.js';

/**
 * Entities as OData JSON (OData 4.0 JSON Format, `odata.metadata=minimal`): REST's records with
 * their envelopes' text as plain strings, integers as numbers, flags as booleans, and each amount
 * beside its cents in the currency's unit. Written as text directly from the row: a page of
 * 10,000 entities is never a page of objects.
 */

/** Minor units by currency (ISO 4217, from the currency-codes package's copy of its list). */
const minorUnits = new Map<string, number>();

/** Digits after the decimal point in `currency` (JPY 0, EUR 2, KWD 3); 2 when unknown. */
export function minorUnitsOf(currency: unknown): number {
  if (typeof currency !== 'string') return 2;
  let digits = minorUnits.get(currency);
  if (digits === undefined) {
    const known = /^[A-Z]{3}$/.test(currency) ? currencyCodes.code(currency) : undefined;
    digits = known && Number.isInteger(known.digits) ? known.digits : 2;
    if (minorUnits.size < 1000) minorUnits.set(currency, digits);
  }
  return digits;
}

/** Cents as an amount in the currency's unit, exactly: integer cents over a power of ten. */
export function amountOf(cents: unknown, currency: unknown): number | null {
  if (cents === null || cents === undefined) return null;
  return Number(cents) / 10 ** minorUnitsOf(currency);
}

/** One property's value as JSON text. */
function valueJson(p: EntityProperty, row: Row): string {
  const value = row[p.column];
  if (value === null || value === undefined) return 'null';
  if (p.amountOf !== undefined) return JSON.stringify(amountOf(value, row.currency));
  switch (p.type) {
    case 'Edm.Int32':
    case 'Edm.Int64':
      return String(Number(value));
    case 'Edm.Double':
      return JSON.stringify(Number(value));
    case 'Collection(Edm.String)':
      return JSON.stringify((value as unknown[]).map(String));
    case 'Edm.Boolean':
      return value === true || value === 1 || value === '1' ? 'true' : 'false';
    default:
      return JSON.stringify(String(value));
  }
}

/**
 * Writes entities of one shape: the member names' JSON written once, each row's values between
 * them. `extra(row)` adds members after the properties (an expanded navigation).
 */
export function entityWriter(
  properties: readonly EntityProperty[],
  extra?: (row: Row) => string,
): (row: Row) => string {
  const names = properties.map((p, i) => `${i === 0 ? '{' : ','}${JSON.stringify(p.name)}:`);
  return (row) => {
    let json = '';
    for (let i = 0; i < properties.length; i++) json += names[i] + valueJson(properties[i], row);
    if (properties.length === 0) json = '{';
    const more = extra?.(row);
    if (more) json += (json === '{' ? '' : ',') + more;
    return `${json}}`;
  };
}

/** An annotation's member, `"@odata.x":value,` or empty when there is none. */
export function annotation(name: string, value: unknown): string {
  return value === undefined || value === null
    ? ''
    : `${JSON.stringify(name)}:${JSON.stringify(value)},`;
}
