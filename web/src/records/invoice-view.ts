import { h } from '../dom.js';
import type { Session } from '../session/session.js';
import { formatMoney, sumInOneCurrency } from './money.js';
import {
  recordPage,
  fieldList,
  fieldValue,
  notVisible,
  period,
  plainId,
  recordLink,
  recordTable,
  when,
  words,
  type ApiRecord,
  type Column,
  withNames,
  workerLink,
} from './record-fields.js';

/** get_invoice's item: the header, the lines this token sees (at most 500) and their true count. */
export interface InvoiceItem {
  invoice: ApiRecord & { id: string; currency: string; totalCents: number };
  lines: (ApiRecord & { amountCents: number; currency: string })[];
  linesTruncated: boolean;
  lineCount: number;
}

const hours = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });

/** A line's quantity in its unit: minutes as hours; `amountCents` is the authoritative figure. */
function lineQuantity(line: ApiRecord): string {
  const q = line.quantity;
  if (typeof q !== 'number') return '—';
  if (line.unit === 'minutes') return `${hours.format(q / 60)} h`;
  if (line.unit === 'units') return `${hours.format(q)} units`;
  return hours.format(q);
}

/**
 * An invoice's lines: eleven fields, paired (Column.below) so that the table fits 1280 px with
 * one column each for what a reader scans down (quantity, amount, worker, supplier); a phone
 * scrolls the table inside itself.
 */
const LINE_COLUMNS: Column[] = [
  { heading: 'Line', value: (l) => plainId(l.id) },
  {
    heading: 'Description',
    value: (l) => fieldValue(l, 'description'),
    below: { heading: 'Band', value: (l) => words(l.band) },
  },
  {
    heading: 'Quantity',
    num: true,
    value: lineQuantity,
    below: {
      heading: 'Rate × multiplier',
      value: (l) =>
        `${typeof l.rateCents === 'number' ? formatMoney(l.rateCents, String(l.currency)) : '—'} × ${
          typeof l.multiplierBp === 'number' ? hours.format(l.multiplierBp / 10000) : '—'
        }`,
    },
  },
  {
    heading: 'Amount',
    num: true,
    value: (l) =>
      h('span', { class: 'amount' }, formatMoney(l.amountCents as number, String(l.currency))),
    below: {
      heading: 'Source currency',
      value: (l) =>
        l.currencyMismatch === true ? h('span', { class: 'flag' }, 'another currency') : '',
    },
  },
  {
    heading: 'Source',
    value: (l) => words(l.sourceType),
    below: {
      heading: 'Source record',
      value: (l) =>
        l.sourceType === 'timesheet' ? recordLink('timesheet', l.sourceRef) : plainId(l.sourceRef),
    },
  },
  // A worker's and a supplier's name go under the id (records.css, .invoice-lines).
  { heading: 'Worker', value: (l) => workerLink(l.workerRef) },
  { heading: 'Org unit', value: (l) => fieldValue(l, 'orgUnitKey') },
  { heading: 'Supplier', value: (l) => fieldValue(l, 'supplierRef') },
];

function linesTable(lines: ApiRecord[]): HTMLElement {
  const table = recordTable('Invoice lines', LINE_COLUMNS, lines);
  table.classList.add('invoice-lines');
  return table;
}

/**
 * What is said under the lines: past the cut (more than 500) only that the total is the
 * invoice's own, never a sum of the part shown; otherwise the lines' sum, when one currency.
 */
export function linesSummary(item: InvoiceItem): HTMLElement | null {
  if (item.linesTruncated)
    return h(
      'p',
      { class: 'truncated', role: 'note' },
      `Showing ${item.lines.length} of ${item.lineCount} lines; the invoice total is the invoice's own total, not a sum of these lines.`,
    );
  const sum = sumInOneCurrency(item.lines);
  if (!sum) return null;
  const n = item.lines.length;
  return h(
    'p',
    { class: 'lines-sum meta' },
    `Sum of the ${n} line${n === 1 ? '' : 's'} shown: ${formatMoney(sum.cents, sum.currency)}. The invoice total above is the invoice's own, as issued.`,
  );
}

/** The invoice's header fields, its lines and what may be said of their sum. */
export function invoiceDetail(item: InvoiceItem): HTMLElement {
  const { invoice, lines } = item;
  return recordPage(
    { key: 'invoices', title: 'Invoices' },
    invoice.type === 'credit_note' ? 'Credit note' : 'Invoice',
    invoice.id,
    fieldList([
      ['Number', fieldValue(invoice, 'number')],
      ['Type', words(invoice.type)],
      ['Status', words(invoice.status)],
      [
        'Supplier',
        invoice.supplierRef === null && invoice.groupingRule === 'consolidated'
          ? 'several (consolidated)'
          : fieldValue(invoice, 'supplierRef'),
      ],
      [
        'Grouped',
        h('span', {}, `${words(invoice.groupingRule)}: `, fieldValue(invoice, 'groupKey')),
      ],
      ['Period', period(invoice)],
      [
        'Total',
        h('strong', { class: 'invoice-total' }, formatMoney(invoice.totalCents, invoice.currency)),
      ],
      ['Currency', invoice.currency],
      ['Corrects invoice', recordLink('invoice', invoice.correctsInvoiceRef)],
      ['Configuration version', fieldValue(invoice, 'configVersion')],
      ['Issued', when(invoice.issuedAt)],
      ['Created', when(invoice.createdAt)],
      ['Updated', when(invoice.updatedAt)],
    ]),
    h('h2', {}, `Lines (${item.lineCount})`),
    linesSummary(item),
    lines.length === 0
      ? h('p', { class: 'empty' }, 'No lines visible to this token.')
      : linesTable(lines),
  );
}

export async function invoiceView(session: Session, id: string): Promise<HTMLElement> {
  const { item } = (await session.client.call('get_invoice', { id })) as {
    item: InvoiceItem | null;
  };
  return item ? withNames(session, invoiceDetail(item)) : notVisible('invoice', id);
}
