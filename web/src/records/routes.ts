import { decoded } from '../dom.js';
import type { Session } from '../session/session.js';
import { recordsSection } from './home-cards.js';
import { invoiceView } from './invoice-view.js';
import { listView } from './list-view.js';
import { searchOf } from './list-search.js';
import { RECORD_LISTS } from './record-lists.js';
import { timesheetView } from './timesheet-view.js';
import { workerView } from './worker-view.js';

export { recordCards, recordsSection } from './home-cards.js';

/**
 * The record pages' routes (#/records, #/records/<list>, #/invoice/<id>, #/timesheet/<id>,
 * #/worker/<id>): the view of `parts` (the hash path split on '/'), or null when the path is not
 * a record page.
 */
export async function recordsRoute(session: Session, parts: string[]): Promise<HTMLElement | null> {
  const [page, id, ...rest] = parts;
  if (rest.length > 0) return null;
  if (page === 'records') {
    if (id === undefined || id === '') return recordsSection(session, 'h1');
    // A list's search follows its key in the address: #/records/invoices?status=draft.
    const [key, query = ''] = id.split(/\?(.*)/s, 2);
    const list = RECORD_LISTS.find((l) => l.key === key);
    return list ? listView(session, list, searchOf(query, list)) : null;
  }
  if (!id) return null;
  if (page === 'invoice') return invoiceView(session, decoded(id));
  if (page === 'timesheet') return timesheetView(session, decoded(id));
  if (page === 'worker') return workerView(session, decoded(id));
  return null;
}
