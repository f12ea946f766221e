import { namedWorkerOf } from '../records/record.js';
import type { FeedType } from '../store/sql/change-log.js';

/**
 * What an answer carried, for the access trail (DESIGN §4.17): the records it served, each by its
 * type and id, the worker it names (the worker itself, or the worker of a timesheet, assignment,
 * expense or approval status), and whether a person's name or work email was in it; for a report, its query and how
 * many rows it gave. Entries and lines count under their timesheet or invoice. Ids only: never a
 * name or an email.
 */
export interface RevealedRecord {
  type: FeedType;
  id: string;
  worker?: string;
  personalData?: true;
}

export interface Revelation {
  records: RevealedRecord[];
  report?: { query: unknown; rows: number };
}

/** The personal fields of SPEC (a worker's `displayName` and `workEmail`, with `read:pii`). */
const PERSONAL_FIELDS = ['displayName', 'workEmail'];

/** A served record as the trail keeps it: type, id, the worker it names, its personal data. */
export function revealedRecord(type: FeedType, record: Record<string, unknown>): RevealedRecord {
  const revealed: RevealedRecord = { type, id: String(record.id) };
  const worker = type === 'worker' ? record.id : (record.workerId ?? namedWorkerOf(record));
  if (typeof worker === 'string') revealed.worker = worker;
  if (PERSONAL_FIELDS.some((field) => Object.hasOwn(record, field))) revealed.personalData = true;
  return revealed;
}

/** A page of records (a list's answer). */
export function revealedItems(type: FeedType, data: unknown): Revelation {
  const items = (data as { items?: unknown }).items;
  return {
    records: Array.isArray(items)
      ? items.map((item) => revealedRecord(type, item as Record<string, unknown>))
      : [],
  };
}

/** One record, at `header` of the item when it comes with its parts (a get's answer). */
export function revealedItem(type: FeedType, data: unknown, header?: string): Revelation {
  const item = (data as { item?: Record<string, unknown> | null }).item;
  const record = item && header ? (item[header] as Record<string, unknown> | undefined) : item;
  return { records: record ? [revealedRecord(type, record)] : [] };
}

/** Nothing of a record: the catalog, saved queries, a refusal. */
export const NOTHING_REVEALED: Revelation = { records: [] };
