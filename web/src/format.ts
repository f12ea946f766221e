/**
 * Numbers as their unit reads (DESIGN: money in integer cents of its own currency, never
 * converted). A money figure is formatted only with its currency: without one it is not a number
 * a person can read, and the page says so instead (currency.ts).
 */
export type Unit = 'cents' | 'hours' | 'days' | 'ratio' | 'count' | string;

const whole = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });
const percent = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 1 });
const signedPercent = new Intl.NumberFormat('en', {
  style: 'percent',
  maximumFractionDigits: 1,
  signDisplay: 'exceptZero',
});
const moneyFormats = new Map<string, Intl.NumberFormat>();
const compactMoneyFormats = new Map<string, Intl.NumberFormat>();

function moneyFormat(currency: string, compact = false): Intl.NumberFormat {
  const formats = compact ? compactMoneyFormats : moneyFormats;
  let format = formats.get(currency);
  if (!format) {
    try {
      format = new Intl.NumberFormat('en', {
        style: 'currency',
        currency,
        currencyDisplay: 'code',
        // Two decimals whatever the currency's custom: the wire value is cents.
        ...(compact
          ? { notation: 'compact', maximumFractionDigits: 1 }
          : { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
      });
    } catch {
      // Not an ISO 4217 code Intl knows: the amount with the code beside it.
      const plain = new Intl.NumberFormat('en', { minimumFractionDigits: 2 });
      format = { format: (n: number) => `${currency} ${plain.format(n)}` } as Intl.NumberFormat;
    }
    formats.set(currency, format);
  }
  return format;
}

/**
 * A figure as the API sends it: a JSON number, or a numeric string for a value past 2^53 (the API
 * keeps it exact that way). Intl formats a numeric string exactly, so a string is never turned
 * into a Number on the way.
 */
export type Figure = number | string;

/** Integer cents as an exact decimal of currency units: -123405n → "-1234.05". */
function unitsOf(cents: bigint): string {
  const sign = cents < 0n ? '-' : '';
  const whole = cents < 0n ? -cents : cents;
  return `${sign}${whole / 100n}.${String(whole % 100n).padStart(2, '0')}`;
}

/** Cents as currency units for a file: a number, or past 2^53 the exact decimal as text. */
export function unitsFigure(cents: Figure): Figure {
  if (typeof cents === 'string' && /^-?\d+$/.test(cents) && !Number.isSafeInteger(Number(cents)))
    return unitsOf(BigInt(cents));
  return Number(cents) / 100;
}

/** An amount of cents in its currency, exact at any size: "EUR 1,234.50". */
export function formatMoney(cents: Figure, currency: string): string {
  const format = moneyFormat(currency);
  if (typeof cents === 'string' && /^-?\d+$/.test(cents))
    return format.format(unitsOf(BigInt(cents)) as never);
  return format.format(Number(cents) / 100);
}

/** A figure of a unit as a table shows it; money needs its currency. */
export function formatOf(unit: Unit, currency?: string | null): (n: Figure) => string {
  // A numeric string goes to Intl as it is (exact); a number as a number.
  const exact = (format: Intl.NumberFormat) => (n: Figure) => format.format(n as never);
  switch (unit) {
    case 'cents':
      return currency ? (n) => formatMoney(n, currency) : exact(whole);
    case 'ratio':
      return exact(percent);
    case 'hours':
    case 'days':
      return exact(oneDecimal);
    default:
      return exact(whole);
  }
}

/** A figure on a chart's axis: shorter (compact money), ratios as percentages like the table. */
export function axisFormatOf(unit: Unit, currency?: string | null): (n: number) => string {
  if (unit === 'cents' && currency) return (n) => moneyFormat(currency, true).format(n);
  if (unit === 'ratio') return (n) => percent.format(n);
  return (n) => oneDecimal.format(n);
}

/** What a chart plots for a unit: cents as currency units, the rest as they are. */
export const chartValue = (unit: Unit, n: number) => (unit === 'cents' ? n / 100 : n);

/**
 * The change from a previous figure: a ratio's change in percentage points, any other figure's
 * as a percentage of the previous one (none when the previous one is zero or missing).
 */
export function formatChange(unit: Unit, now: number | null, before: number | null): string {
  if (now === null || before === null) return '—';
  if (unit === 'ratio') {
    const points = (now - before) * 100;
    return `${points > 0 ? '+' : ''}${oneDecimal.format(points)} pts`;
  }
  if (before === 0) return now === 0 ? '0%' : 'new';
  return signedPercent.format((now - before) / Math.abs(before));
}

/** The change as a number for CSV: a fraction of the previous figure (0.2 for +20%), for a ratio the difference. */
export function changeNumber(unit: Unit, now: number | null, before: number | null): number | null {
  if (now === null || before === null) return null;
  if (unit === 'ratio') return now - before;
  return before === 0 ? null : (now - before) / Math.abs(before);
}
