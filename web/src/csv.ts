import { h } from './dom.js';

/**
 * A table as CSV (RFC 4180: fields with a comma, quote or line break quoted, quotes doubled),
 * downloaded from the page itself. Cells that a spreadsheet would read as a formula (third-party
 * text starting with =, +, -, @, a tab or a carriage return) are prefixed with a quote mark, so a
 * supplier's name can never run in the reader's spreadsheet (OWASP "CSV injection"); numbers stay
 * numbers, and so does a negative number written as text ("-12.5"). An amount with its currency
 * code after the sign ("-GBP 15,918.00", a credit note in a record table) is guarded: a
 * spreadsheet would read it as a formula.
 */
export type CsvCell = string | number | null;

/** A negative number as text ("-12.5", "-1,234.5"): a number to a spreadsheet, never a formula. */
const NEGATIVE = /^-[\d,]+(?:\.\d+)?$/;

function field(value: CsvCell): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) && !NEGATIVE.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const csvOf = (header: string[], rows: CsvCell[][]) =>
  [header, ...rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';

/** Saves a file the person downloads: the page's own link, or a host's (an MCP Apps view). */
export type SaveFile = (name: string, text: string) => void;

function saveFromPage(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

let save: SaveFile | null = saveFromPage;

/**
 * How "Download CSV" saves: the page's link by default; an MCP Apps view, whose sandbox blocks
 * downloads, asks its host, or (null) offers no button when the host cannot save files.
 */
export function saveFilesWith(saver: SaveFile | null): void {
  save = saver;
}

/** A "Download CSV" button that saves `make()`'s text as `name`.csv when pressed; none when nothing can save. */
export function csvButton(name: string, make: () => string): HTMLElement | null {
  const saver = save;
  if (!saver) return null;
  const button = h('button', { type: 'button', class: 'secondary small' }, 'Download CSV');
  button.addEventListener('click', () => saver(`${name}.csv`, make()));
  return button;
}

/** A file name from a title: letters, digits and dashes. */
export const fileNameOf = (title: string) =>
  title
    .normalize('NFKD')
    .replace(/[^\w-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60) || 'report';

/**
 * A table's CSV as it reads on the page: its headings and each cell's text; a cell of two parts
 * (one field under another, record-fields.ts) gives a column to each.
 */
export function tableCsv(table: HTMLTableElement): string {
  const texts = (row: Element, cells: string) =>
    [...row.querySelectorAll(cells)].flatMap((cell) => {
      const parts = cell.querySelectorAll(':scope > .part');
      return (parts.length > 0 ? [...parts] : [cell]).map((part) => part.textContent ?? '');
    });
  const [head, ...rows] = [...table.rows];
  return csvOf(
    head ? texts(head, 'th') : [],
    rows.map((row) => texts(row, 'td')),
  );
}
