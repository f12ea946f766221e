/** The change feed as tests read it: an item's shape, and the list that serves each type. */
import type { FeedType } from '../../src/store/sql/change-log.js';

/** One item of `list_changes`: a record, or a tombstone (`record` null; DESIGN §4.13). */
export interface FeedItem {
  type: FeedType;
  id: string;
  version: number;
  record: (Record<string, unknown> & { id: string }) | null;
  removed?: { reason: 'deleted' | 'not_visible' };
}

/** The list operation that serves each item type. */
export const LIST_OF = {
  supplier: 'list_suppliers',
  worker: 'list_workers',
  assignment: 'list_assignments',
  timesheet: 'list_timesheets',
  expense: 'list_expenses',
  invoice: 'list_invoices',
  approval_status: 'list_approval_statuses',
} as const satisfies Record<FeedType, string>;
