/**
 * Money as the API sends it: integer cents of the record's own currency, never converted. Each
 * amount is shown with its currency; amounts of different currencies are never added.
 */
const formats = new Map<string, Intl.NumberFormat>();

function formatOf(currency: string): Intl.NumberFormat | null {
  let format = formats.get(currency);
  if (!format) {
    try {
      // Two decimals whatever the currency's custom: the wire value is cents.
      format = new Intl.NumberFormat('en', {
        style: 'currency',
        currency,
        minimumFractionDigits: 2,
        maximumFractionDigits: 2,
      });
    } catch {
      return null; // not an ISO code Intl knows: shown as number and code below
    }
    formats.set(currency, format);
  }
  return format;
}

/** `cents` of `currency` in currency units, e.g. formatMoney(-123456, 'EUR') → "-€1,234.56". */
export function formatMoney(cents: number, currency: string): string {
  const format = formatOf(currency);
  if (format) return format.format(cents / 100);
  return `${(cents / 100).toFixed(2)} ${currency}`;
}

/**
 * The sum of amounts when they are all in one currency, or null: a sum across currencies would
 * mean nothing.
 */
export function sumInOneCurrency(
  amounts: readonly { amountCents: number; currency: string }[],
): { cents: number; currency: string } | null {
  const currency = amounts[0]?.currency;
  if (!currency || amounts.some((a) => a.currency !== currency)) return null;
  return { cents: amounts.reduce((sum, a) => sum + a.amountCents, 0), currency };
}
