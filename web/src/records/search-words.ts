import type { Choice } from './choices.js';
import {
  label,
  periodParams,
  workerParam,
  type FilterField,
  type ListSearch,
} from './search-fields.js';

/** A list's search in words: the status line's, and the folded form's one line. */

/** The search in words, for the empty result and the status line: "status draft · supplier …". */
export function searchWords(
  search: ListSearch,
  fields: readonly FilterField[],
  suppliers: readonly Choice[],
): string {
  const { filters } = search;
  const parts: string[] = [];
  for (const f of fields) {
    if (f.kind === 'choice' && filters[f.param])
      parts.push(`${f.label.toLowerCase()} ${label(filters[f.param])}`);
    if (f.kind === 'text' && filters[f.param])
      parts.push(`${f.label.toLowerCase()} “${filters[f.param]}”`);
    if (f.kind === 'supplier' && filters.supplierId) {
      const known = suppliers.find((s) => s.value === filters.supplierId);
      parts.push(`supplier ${known ? known.label : filters.supplierId}`);
    }
    if (f.kind === 'worker' && filters[workerParam(f)])
      parts.push(`worker ${filters[workerParam(f)]}`);
    const [from, to] = f.kind === 'period' ? periodParams(f).map((p) => filters[p]) : [];
    if (f.kind === 'period' && (from || to))
      parts.push(
        `${(f.label ?? 'Period').toLowerCase()} ${from ? `from ${from}` : ''}${from && to ? ' ' : ''}${to ? `to ${to}` : ''}`,
      );
  }
  return parts.join(' · ');
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** A period in words: a whole month by its name ("October 2026"), else its days. */
export function periodWords(from: string | undefined, to: string | undefined): string {
  const month = from && /^(\d{4})-(\d{2})-01$/.exec(from);
  if (month && to) {
    const [year, index] = [Number(month[1]), Number(month[2])];
    const last = new Date(Date.UTC(year, index, 0)).toISOString().slice(0, 10);
    if (to === last) return `${MONTHS[index - 1]} ${year}`;
  }
  if (from && to) return `${from} – ${to}`;
  return from ? `from ${from}` : `to ${to ?? ''}`;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * A search that ran, in one line of what it searched for, as a folded form shows it on a narrow
 * screen: "Draft · October 2026 · Fabrikam (FAB)". Supplier and worker by their labels where
 * known, by id otherwise.
 */
export function foldedWords(
  search: ListSearch,
  fields: readonly FilterField[],
  suppliers: readonly Choice[],
  workers: readonly Choice[],
): string {
  const { filters } = search;
  const parts: string[] = [];
  for (const f of fields) {
    if (f.kind === 'choice' && filters[f.param]) parts.push(capitalised(label(filters[f.param])));
    if (f.kind === 'text' && filters[f.param]) parts.push(`${f.label} “${filters[f.param]}”`);
    if (f.kind === 'supplier' && filters.supplierId)
      parts.push(
        suppliers.find((s) => s.value === filters.supplierId)?.label ?? filters.supplierId,
      );
    const worker = f.kind === 'worker' ? filters[workerParam(f)] : undefined;
    if (worker) parts.push(workers.find((w) => w.value === worker)?.label ?? worker);
    const [from, to] = f.kind === 'period' ? periodParams(f).map((p) => filters[p]) : [];
    if (f.kind === 'period' && (from || to))
      parts.push(`${f.label ? `${f.label} ` : ''}${periodWords(from, to)}`);
  }
  if (search.order === 'asc') parts.push('oldest first');
  return parts.join(' · ');
}
