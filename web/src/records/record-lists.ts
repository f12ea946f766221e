import type { FilterField, Searched } from './search-fields.js';
import { formatMoney } from './money.js';
import {
  fieldValue,
  period,
  plainId,
  recordLink,
  when,
  words,
  workerLink,
  type ApiRecord,
  type Column,
  type RecordKind,
} from './record-fields.js';

/** The list operations behind the record pages. */
export type ListOperation =
  | 'list_workers'
  | 'list_timesheets'
  | 'list_invoices'
  | 'list_suppliers'
  | 'list_assignments'
  | 'list_expenses'
  | 'list_approval_statuses'
  | 'list_audit_events';

/** One record list: its page (#/records/<key>), its operation, its card and its columns. */
export interface RecordList extends Searched {
  operation: ListOperation;
  title: string;
  /** One line on the home page's card: what the list holds. */
  holds: string;
  columns: Column[];
  /** What its search form offers: the list's filters (DESIGN §4.15). */
  filters: FilterField[];
  /** What a row is, one and many, where it is not a record. */
  unit?: readonly [string, string];
  /** The key of a row's id (its `data-id`), where it is not `id`. */
  idKey?: string;
  /** The way back above the list: all records, unless the list says otherwise. */
  back?: { href: string; label: string };
  /** The API's input for a search as the address holds it, when it is not the same. */
  inputOf?: (filters: Readonly<Record<string, string>>) => Record<string, string>;
  /** A class of its table's region, for a layout of its own (the access trail's cards). */
  tableClass?: string;
  /** Its heading for a search, where it is not the title ("Who saw worker …"). */
  headingOf?: (filters: Readonly<Record<string, string>>) => (Node | string)[] | null;
}

/** A record list of `#/records/<key>`. */
const records = (list: Omit<RecordList, 'address'>): RecordList => ({
  ...list,
  address: `#/records/${list.key}`,
});

const status = (values: readonly string[], label = 'Status'): FilterField => ({
  kind: 'choice',
  param: label === 'State' ? 'state' : 'status',
  label,
  values,
});

const field = (heading: string, key: string): Column => ({
  heading,
  value: (r) => fieldValue(r, key),
});
const enumerated = (heading: string, key: string): Column => ({
  heading,
  value: (r) => words(r[key]),
});
const timestamp = (heading: string, key: string): Column => ({
  heading,
  value: (r) => when(r[key]),
});
const link = (heading: string, key: string, kind: RecordKind): Column => ({
  heading,
  value: (r) => recordLink(kind, r[key]),
});
const id = (heading: string, key: string): Column => ({ heading, value: (r) => plainId(r[key]) });
/** An amount in the record's own currency. */
const money = (heading: string, key: string): Column => ({
  heading,
  num: true,
  value: (r: ApiRecord) =>
    typeof r[key] === 'number' ? formatMoney(r[key] as number, String(r.currency)) : '—',
});

export const RECORD_LISTS: RecordList[] = [
  records({
    key: 'workers',
    operation: 'list_workers',
    title: 'Workers',
    holds: 'People engaged in the program: engagement type, onboarding and status.',
    columns: [
      link('Worker', 'id', 'worker'),
      field('Name', 'displayName'),
      field('Work email', 'workEmail'),
      enumerated('Engagement', 'type'),
      enumerated('Onboarding', 'onboardingState'),
      enumerated('Status', 'status'),
      field('Classification', 'classificationStatus'),
      field('Tenure start', 'tenureStart'),
    ],
    filters: [
      status(['active', 'inactive']),
      {
        kind: 'choice',
        param: 'onboardingState',
        label: 'Onboarding',
        values: ['invited', 'onboarding', 'active', 'offboarded'],
      },
    ],
  }),
  records({
    key: 'timesheets',
    operation: 'list_timesheets',
    title: 'Timesheets',
    holds: 'Time by worker and period, with its approval status; each opens on its entries.',
    columns: [
      link('Timesheet', 'id', 'timesheet'),
      { heading: 'Worker', value: (r) => workerLink(r.workerId) },
      { heading: 'Period', value: period },
      enumerated('Captured in', 'entryMode'),
      enumerated('Status', 'status'),
      timestamp('Submitted', 'submittedAt'),
      timestamp('Decided', 'decidedAt'),
    ],
    filters: [
      status(['draft', 'submitted', 'approved', 'rejected']),
      { kind: 'worker' },
      { kind: 'period' },
    ],
  }),
  records({
    key: 'invoices',
    operation: 'list_invoices',
    title: 'Invoices',
    holds: 'Invoices and credit notes: number, status, period and total in their currency.',
    columns: [
      link('Invoice', 'id', 'invoice'),
      // By pairs, so that every column fits 1280 px (record-fields.ts, Column.below).
      { ...field('Number', 'number'), below: enumerated('Type', 'type') },
      { ...enumerated('Status', 'status'), below: timestamp('Issued', 'issuedAt') },
      {
        heading: 'Supplier',
        // A consolidated invoice covers several suppliers: its supplierRef is null.
        value: (r) =>
          r.supplierRef === null && r.groupingRule === 'consolidated'
            ? 'several (consolidated)'
            : fieldValue(r, 'supplierRef'),
      },
      { heading: 'Period', value: period },
      money('Total', 'totalCents'),
    ],
    filters: [
      { kind: 'text', param: 'number', label: 'Invoice number' },
      status(['draft', 'issued', 'pushed', 'void']),
      { kind: 'choice', param: 'type', label: 'Type', values: ['invoice', 'credit_note'] },
      { kind: 'supplier' },
      { kind: 'period' },
    ],
  }),
  records({
    key: 'suppliers',
    operation: 'list_suppliers',
    title: 'Suppliers',
    holds: 'Staffing suppliers: code, name and status.',
    columns: [
      id('Supplier', 'id'),
      field('Code', 'code'),
      field('Name', 'name'),
      enumerated('Status', 'status'),
      timestamp('Created', 'createdAt'),
    ],
    filters: [],
  }),
  records({
    key: 'assignments',
    operation: 'list_assignments',
    title: 'Assignments',
    holds: 'Who works where through which supplier, at what bill rate, from when to when.',
    columns: [
      id('Assignment', 'id'),
      { heading: 'Worker', value: (r) => workerLink(r.workerId) },
      field('Supplier', 'supplierRef'),
      field('Job', 'jobCode'),
      field('Site', 'siteKey'),
      field('Org unit', 'orgUnitKey'),
      money('Bill rate', 'billRateCents'),
      field('Start', 'startDate'),
      field('End', 'endDate'),
      enumerated('Status', 'status'),
    ],
    filters: [{ kind: 'worker' }, { kind: 'supplier' }],
  }),
  records({
    key: 'expenses',
    operation: 'list_expenses',
    title: 'Expenses',
    holds: 'Expenses claimed on assignments: category, date, amount in its currency, status.',
    columns: [
      id('Expense', 'id'),
      { heading: 'Worker', value: (r) => workerLink(r.workerId) },
      id('Assignment', 'assignmentId'),
      field('Supplier', 'supplierRef'),
      field('Category', 'category'),
      field('Incurred on', 'incurredOn'),
      money('Amount', 'amountCents'),
      enumerated('Status', 'status'),
    ],
    filters: [
      status(['draft', 'submitted', 'approved', 'rejected']),
      { kind: 'worker' },
      { kind: 'supplier' },
    ],
  }),
  records({
    key: 'approval-statuses',
    operation: 'list_approval_statuses',
    title: 'Approval statuses',
    holds: 'Each approval step of timesheets and expenses: its state and when it was decided.',
    columns: [
      id('Approval', 'id'),
      {
        heading: 'Subject',
        value: (r) =>
          r.subjectType === 'timesheet'
            ? recordLink('timesheet', r.subjectRef)
            : plainId(r.subjectRef),
      },
      enumerated('Subject type', 'subjectType'),
      field('Step', 'step'),
      enumerated('State', 'state'),
      timestamp('Decided', 'decidedAt'),
      id('Approval routing', 'approvalInstanceRef'),
    ],
    filters: [
      status(['pending', 'approved', 'rejected'], 'State'),
      { kind: 'text', param: 'subjectRef', label: 'Subject id' },
    ],
  }),
];
