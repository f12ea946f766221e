/**
 * What a list's search is made of: its fields (the API's list filters, DESIGN §4.15), the search
 * as the address holds it, and the parameters each field fills.
 */
export type FilterField =
  | { kind: 'choice'; param: string; label: string; values: readonly string[] }
  | { kind: 'supplier' }
  /** A worker by name or id; its parameter is `workerId` unless `param` says otherwise. */
  | { kind: 'worker'; param?: string }
  | { kind: 'text'; param: string; label: string }
  /** Two days, from and to; `periodFrom` and `periodTo` unless `params` says otherwise. */
  | { kind: 'period'; params?: readonly [string, string]; label?: string };

export type Order = 'asc' | 'desc';

/** A list's search as the address holds it. */
export interface ListSearch {
  filters: Record<string, string>;
  order: Order;
}

export const paramsOf = (field: FilterField): string[] => {
  switch (field.kind) {
    case 'choice':
    case 'text':
      return [field.param];
    case 'supplier':
      return ['supplierId'];
    case 'worker':
      return [workerParam(field)];
    case 'period':
      return [...periodParams(field)];
  }
};

export const workerParam = (field: { param?: string }) => field.param ?? 'workerId';
export const periodParams = (field: { params?: readonly [string, string] }) =>
  field.params ?? (['periodFrom', 'periodTo'] as const);

/** What a list's search form and address need of the list. */
export interface Searched {
  key: string;
  /** The list's address without a search: `#/records/<key>`, or its own. */
  address: string;
  filters: readonly FilterField[];
  /** Answered in one order only (newest first): no Order control, none in the address. */
  unordered?: true;
}

/** An enumerated value in words: `credit_note` → "credit note". */
export const label = (value: string) => value.replace(/_/g, ' ');
