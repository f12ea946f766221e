/** Numbers as their unit reads (DESIGN: money in integer cents, no currency conversion). */
export type Unit = 'cents' | 'hours' | 'days' | 'ratio' | 'count' | string;

const whole = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });
const money = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const percent = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 1 });

export function formatOf(unit: Unit): (n: number) => string {
  switch (unit) {
    case 'cents':
      return (n) => money.format(n / 100);
    case 'ratio':
      return (n) => percent.format(n);
    case 'hours':
    case 'days':
      return (n) => oneDecimal.format(n);
    default:
      return (n) => whole.format(n);
  }
}

/** What a chart plots for a unit: cents as currency units, the rest as they are. */
export const chartValue = (unit: Unit, n: number) => (unit === 'cents' ? n / 100 : n);
