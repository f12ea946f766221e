import { h } from '../dom.js';
import type { Session } from '../session/session.js';
import {
  recordPage,
  fieldList,
  fieldValue,
  notVisible,
  period,
  plainId,
  recordTable,
  when,
  words,
  type ApiRecord,
  type Column,
  withNames,
  workerLink,
} from './record-fields.js';

/** get_timesheet's item: the timesheet, its entries oldest first (at most 1,000). */
export interface TimesheetItem {
  timesheet: ApiRecord & { id: string; entryMode: string };
  entries: ApiRecord[];
  entriesTruncated: boolean;
}

const number = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });
const plural = (n: number, one: string) =>
  `${number.format(n)} ${one}${Math.abs(n) === 1 ? '' : 's'}`;

/** How much time an amount is, by the timesheet's entry mode: minutes as hours, or days, months. */
export function timeAmount(
  entryMode: string,
  minutes: number | null,
  units: number | null,
): string {
  if (entryMode === 'hourly' && minutes !== null) return `${number.format(minutes / 60)} h`;
  if (entryMode === 'daily' && units !== null) return plural(units, 'day');
  if (entryMode === 'monthly' && units !== null) return plural(units, 'month');
  if (minutes !== null) return `${number.format(minutes / 60)} h`;
  return units === null ? '—' : number.format(units);
}

const quantity = (mode: string) => (e: ApiRecord) =>
  timeAmount(
    mode,
    typeof e.quantityMinutes === 'number' ? e.quantityMinutes : null,
    typeof e.quantityUnits === 'number' ? e.quantityUnits : null,
  );

/** A correction says what it corrects; an original row says nothing. */
function correction(e: ApiRecord): Node | string {
  if (e.kind !== 'reversal' && e.kind !== 'restatement') return '';
  const label = e.kind === 'reversal' ? 'Reversal of ' : 'Restatement of ';
  return h('span', { class: `kind-label ${e.kind}` }, label, plainId(e.correctsEntryId));
}

const entryColumns = (mode: string): Column[] => [
  { heading: 'Work date', value: (e) => fieldValue(e, 'workDate') },
  { heading: 'Pay code', value: (e) => fieldValue(e, 'payCode') },
  { heading: 'Quantity', num: true, value: quantity(mode) },
  { heading: 'Correction', value: correction },
  { heading: 'Entry', value: (e) => plainId(e.id) },
  { heading: 'Entered on behalf', value: (e) => (e.capturedOnBehalf === true ? 'yes' : 'no') },
  { heading: 'Assignment', value: (e) => plainId(e.assignmentId) },
  { heading: 'Supplier', value: (e) => fieldValue(e, 'supplierRef') },
  { heading: 'Recorded', value: (e) => when(e.createdAt) },
];

/** The net time of a whole timesheet (reversals are negative); never of a truncated one. */
function netTime(item: TimesheetItem): HTMLElement {
  if (item.entriesTruncated)
    return h(
      'p',
      { class: 'truncated', role: 'note' },
      `Showing the first ${item.entries.length} entries; this timesheet has more, so no total is shown.`,
    );
  const sum = (key: string) =>
    item.entries.some((e) => typeof e[key] === 'number')
      ? item.entries.reduce((s, e) => s + (typeof e[key] === 'number' ? (e[key] as number) : 0), 0)
      : null;
  return h(
    'p',
    { class: 'meta net-time' },
    `Net time of the ${item.entries.length} entries, corrections included: `,
    timeAmount(item.timesheet.entryMode, sum('quantityMinutes'), sum('quantityUnits')),
  );
}

/** A timesheet and its entries; corrections (reversal, restatement) marked and labelled. */
export function timesheetDetail(item: TimesheetItem): HTMLElement {
  const { timesheet, entries } = item;
  return recordPage(
    { key: 'timesheets', title: 'Timesheets' },
    'Timesheet',
    timesheet.id,
    fieldList([
      ['Worker', workerLink(timesheet.workerId)],
      ['Period', period(timesheet)],
      ['Captured in', words(timesheet.entryMode)],
      ['Status', words(timesheet.status)],
      ['Submitted', when(timesheet.submittedAt)],
      ['Decided', when(timesheet.decidedAt)],
      ['Approval routing', plainId(timesheet.approvalInstanceRef)],
      ['Configuration version', fieldValue(timesheet, 'configVersion')],
      ['Created', when(timesheet.createdAt)],
      ['Updated', when(timesheet.updatedAt)],
    ]),
    h('h2', {}, `Entries (${entries.length}${item.entriesTruncated ? '+' : ''})`),
    entries.length === 0 ? h('p', { class: 'empty' }, 'No entries.') : netTime(item),
    entries.length === 0
      ? null
      : recordTable('Time entries', entryColumns(timesheet.entryMode), entries, (e) =>
          e.kind === 'reversal' || e.kind === 'restatement' ? `entry-${e.kind}` : undefined,
        ),
  );
}

export async function timesheetView(session: Session, id: string): Promise<HTMLElement> {
  const { item } = (await session.client.call('get_timesheet', { id })) as {
    item: TimesheetItem | null;
  };
  return item ? withNames(session, timesheetDetail(item)) : notVisible('timesheet', id);
}
