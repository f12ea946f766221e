/** The roles a token can have; visibility is declared per role below. */
export const ROLES = ['staff', 'worker', 'billing_entity'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** What decides which records a reader sees: its role and the worker or supplier it is bound to. */
export interface Viewer {
  role: Role;
  /** Set for worker tokens. */
  workerId: string | null;
  /** Set for billing-entity tokens: the supplier's code (what `supplierRef` holds). */
  supplierCode: string | null;
}

/**
 * Which records a role sees (DESIGN §4.4), declared per resource and compiled to SQL by the store.
 * - `all`: the whole workspace; `none`: nothing.
 * - `{ column, is: 'worker' | 'supplier' }`: the column equals the token's worker id or supplier code.
 * - `invoiceOfSupplier`: supplier's own invoices plus consolidated invoices carrying one of its lines.
 * - `supplierOfWorker`: suppliers of the worker's assignments.
 * - `lineOfSupplier`: invoice lines of the supplier on the invoices it sees (`invoiceOfSupplier`),
 *   what get_invoice shows a billing entity of each of its invoices.
 */
export type VisibilityRule =
  | 'all'
  | 'none'
  | { column: string; is: 'worker' | 'supplier' }
  | 'invoiceOfSupplier'
  | 'supplierOfWorker'
  | 'lineOfSupplier';

export interface Visibility {
  worker: VisibilityRule;
  billing_entity: VisibilityRule;
}

export const ownWorker = (column: string): VisibilityRule => ({ column, is: 'worker' });
export const ownSupplier = (column: string): VisibilityRule => ({ column, is: 'supplier' });

/**
 * Which suppliers each role reads: `list_suppliers`' visibility, and the suppliers a `supplierId`
 * filter can name (store/sql/resource-sql.ts): an id of any other resolves as one that names no
 * supplier, so a filter by it does the same work (docs/limits-and-faults.md).
 */
export const SUPPLIER_VISIBILITY: Visibility = {
  worker: 'supplierOfWorker',
  billing_entity: ownSupplier('code'),
};
