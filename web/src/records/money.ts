/**
 * Money as the API sends it: integer cents of the record's own currency, never converted. Each
 * amount is shown with its currency; amounts of different currencies are never added.
 */
export { formatMoney } from '../format.js';

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
