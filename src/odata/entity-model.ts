import type { Scope } from '../auth/scopes.js';
import { invoiceLineSource, invoiceList } from '../operations/invoices.js';
import type { ResourceSpec } from '../operations/resource-operations.js';
import {
  approvalStatusList,
  assignmentList,
  expenseList,
  supplierList,
} from '../operations/simple-lists.js';
import { timeEntrySource, timesheetList } from '../operations/timesheets.js';
import { workerList } from '../operations/workers.js';
import type { Field, RecordType } from '../records/record.js';
import { InvoiceLineRecord, TimeEntryRecord } from '../records/resources.js';
import type { FeedType } from '../store/sql/change-log.js';
import type { ResourceSource } from '../store/store.js';

/**
 * The OData feed's entity model (DESIGN §4.18), derived from the same resource definitions the
 * REST lists, MCP tools, the OpenAPI document and the client are walked from: a set per resource
 * list, and the parts of a timesheet and an invoice as sets of their own. A field added to a
 * record (src/records/resources.ts) is a property here with no second list to keep.
 */

export type EdmType =
  | 'Edm.String'
  | 'Edm.Date'
  | 'Edm.DateTimeOffset'
  | 'Edm.Int32'
  | 'Edm.Int64'
  | 'Edm.Boolean'
  | 'Edm.Decimal'
  | 'Edm.Double'
  | 'Collection(Edm.String)';

export const NAMESPACE = 'VmsRead';
export const CONTAINER = 'Container';

export interface EntityProperty {
  /** REST's field name. */
  name: string;
  type: EdmType;
  nullable: boolean;
  /** The column it is read from (an amount: its cents column). */
  column: string;
  /** People-typed text: a provenance envelope in REST, `VmsRead.Provenance` here. */
  provenance: boolean;
  /** `displayName`, `workEmail`: only for a token with read:pii. */
  personal: boolean;
  /** An amount in the currency's unit, computed from the cents property of this name. */
  amountOf?: string;
  filterable: boolean;
  sortable: boolean;
}

/** A collection-valued navigation: the parts of a record, found by their foreign key. */
export interface Navigation {
  name: string;
  /** The set its entities belong to. */
  target: string;
  /** The target's property that holds this record's id. */
  foreignKey: string;
}

export interface EntitySet {
  name: string;
  /** The entity type's name in the namespace. */
  typeName: string;
  scope: Scope;
  record: RecordType;
  source: ResourceSource;
  properties: readonly EntityProperty[];
  byName: ReadonlyMap<string, EntityProperty>;
  navigation: readonly Navigation[];
  /**
   * The record type the access trail and the change feed know it by: a time entry is revealed
   * under its timesheet, an invoice line under its invoice (DESIGN §4.17).
   */
  feedType: FeedType;
  /** The property naming the record `feedType` counts it under (its own `id`, or its parent's). */
  revealedAs: string;
  /** The operation whose records it serves, as provenance and cursors name it. */
  operationId: string;
  /**
   * The columns its rows are read in when no `$orderby` says otherwise, and that break ties when
   * one does: REST's `(created_at, id)`, or a part's by its parent first, which the parts' own
   * index answers (no index of a workspace's entries or lines by creation exists, nor is worth
   * every load's cost).
   */
  order: readonly string[];
}

/** `totalCents` → `total`, the amount beside it in the currency's unit (DESIGN §4.18). */
const amountName = (name: string): string | null =>
  /^[a-z][A-Za-z]*Cents$/.test(name) ? name.slice(0, -'Cents'.length) : null;

function edmTypeOf(name: string, field: Field): EdmType {
  switch (field.kind) {
    case 'string':
      return field.format === 'date'
        ? 'Edm.Date'
        : field.format === 'timestamp'
          ? 'Edm.DateTimeOffset'
          : 'Edm.String';
    case 'int':
      return amountName(name) ? 'Edm.Int64' : 'Edm.Int32';
    case 'flag':
      return 'Edm.Boolean';
    case 'text':
      return 'Edm.String';
  }
}

/** A record's fields as properties, each cents field followed by its amount where there is a currency. */
export function propertiesOf(record: RecordType): EntityProperty[] {
  const hasCurrency = 'currency' in record.fields;
  const properties: EntityProperty[] = [];
  for (const [name, field] of Object.entries(record.fields)) {
    const nullable = field.nullable === true;
    properties.push({
      name,
      type: edmTypeOf(name, field),
      nullable,
      column: field.column,
      provenance: field.kind === 'text',
      personal: field.kind === 'text' && field.pii === true,
      filterable: true,
      sortable: true,
    });
    const amount = field.kind === 'int' && hasCurrency ? amountName(name) : null;
    if (amount && !(amount in record.fields))
      properties.push({
        name: amount,
        type: 'Edm.Decimal',
        nullable,
        column: field.column,
        provenance: false,
        personal: false,
        amountOf: name,
        // Filtered at each row's currency's scale (amount-sql.ts); sorted by the cents beside it,
        // which orders amounts of one currency alike.
        filterable: true,
        sortable: false,
      });
  }
  return properties;
}

interface SetDeclaration {
  name: string;
  typeName: string;
  spec: Pick<ResourceSpec, 'name' | 'scope' | 'record' | 'type'> & {
    source: Omit<ResourceSource, 'columns'>;
  };
  navigation?: Navigation[];
  revealedAs?: string;
  order?: string[];
}

const DECLARATIONS: readonly SetDeclaration[] = [
  { name: 'Workers', typeName: 'Worker', spec: workerList },
  { name: 'Suppliers', typeName: 'Supplier', spec: supplierList },
  { name: 'Assignments', typeName: 'Assignment', spec: assignmentList },
  {
    name: 'Timesheets',
    typeName: 'Timesheet',
    spec: timesheetList,
    navigation: [{ name: 'Entries', target: 'TimeEntries', foreignKey: 'timesheetId' }],
  },
  {
    name: 'TimeEntries',
    typeName: 'TimeEntry',
    // What get_timesheet serves of a timesheet's entries, under list_timesheets' scope.
    spec: { ...timesheetList, record: TimeEntryRecord, source: timeEntrySource },
    revealedAs: 'timesheetId',
    order: ['timesheet_id', 'created_at', 'id'],
  },
  { name: 'Expenses', typeName: 'Expense', spec: expenseList },
  {
    name: 'Invoices',
    typeName: 'Invoice',
    spec: invoiceList,
    navigation: [{ name: 'Lines', target: 'InvoiceLines', foreignKey: 'invoiceId' }],
  },
  {
    name: 'InvoiceLines',
    typeName: 'InvoiceLine',
    spec: { ...invoiceList, record: InvoiceLineRecord, source: invoiceLineSource },
    revealedAs: 'invoiceId',
    order: ['invoice_id', 'created_at', 'id'],
  },
  { name: 'ApprovalStatuses', typeName: 'ApprovalStatus', spec: approvalStatusList },
];

function entitySetOf(declaration: SetDeclaration): EntitySet {
  const { spec } = declaration;
  const properties = propertiesOf(spec.record);
  return {
    name: declaration.name,
    typeName: declaration.typeName,
    scope: spec.scope,
    record: spec.record,
    source: { ...spec.source, columns: spec.record.columns },
    properties,
    byName: new Map(properties.map((p) => [p.name, p])),
    navigation: declaration.navigation ?? [],
    feedType: spec.type,
    revealedAs: declaration.revealedAs ?? 'id',
    operationId: spec.name,
    order: declaration.order ?? ['created_at', 'id'],
  };
}

/** The nine resource sets, in the order the service document lists them. */
export const ENTITY_SETS: readonly EntitySet[] = DECLARATIONS.map(entitySetOf);

export const SETS_BY_NAME: ReadonlyMap<string, EntitySet> = new Map(
  ENTITY_SETS.map((set) => [set.name, set]),
);

/** The properties a token sees: all but the personal ones without read:pii. */
export function visibleProperties(set: EntitySet, pii: boolean): readonly EntityProperty[] {
  return pii ? set.properties : set.properties.filter((p) => !p.personal);
}
