import { isProvenance } from '../dom.js';
import { dataCache } from '../session/data-follow.js';
import { mayCall } from '../session/reach.js';
import type { Session } from '../session/session.js';

/** One option of a search field: the id the API filters by, and what a person reads. */
export interface Choice {
  value: string;
  label: string;
}

/** How many workers the search offers by name; past them, an id is typed. */
export const MAX_WORKER_CHOICES = 2000;

const suppliers = dataCache<Promise<Choice[]>>();
const workers = dataCache<WorkerChoices>();

/** Every supplier this token may list, by name (and code), sorted by name; read once a data mark. */
export function supplierChoices(session: Session): Promise<Choice[]> {
  return suppliers(session, () =>
    collect(session, 'list_suppliers', Infinity, (item) => {
      const { id, code, name } = item as { id?: unknown; code?: unknown; name?: unknown };
      if (typeof id !== 'string') return null;
      const codeText = isProvenance(code) ? code.value : '';
      const nameText = isProvenance(name) ? name.value : codeText;
      return { value: id, label: codeText ? `${nameText} (${codeText})` : nameText };
    }),
  );
}

/** The workers a search offers: the first page's soon, every one (up to the most) later. */
export interface WorkerChoices {
  /** The first page's workers: enough to say whether names are readable and to start the list. */
  first: Promise<Choice[]>;
  /** Every worker offered, at most MAX_WORKER_CHOICES. */
  all: Promise<Choice[]>;
}

/**
 * Workers this token may list (the newest first, at most MAX_WORKER_CHOICES), labelled
 * "name · id" where the token may read names (read:pii), by id alone otherwise. The form waits
 * for the first page only: reading 2,000 workers takes twenty pages.
 */
export function workerChoices(session: Session): WorkerChoices {
  return workers(session, () => {
    let firstPage: (choices: Choice[]) => void = () => {};
    const first = new Promise<Choice[]>((resolve) => (firstPage = resolve));
    const all = collect(
      session,
      'list_workers',
      MAX_WORKER_CHOICES,
      (item) => {
        const { id, displayName } = item as { id?: unknown; displayName?: unknown };
        if (typeof id !== 'string') return null;
        return {
          value: id,
          label: isProvenance(displayName) ? `${displayName.value} · ${id}` : id,
        };
      },
      firstPage,
    );
    return { first, all };
  });
}

/** How many records a page of choices reads. */
const CHOICE_PAGE = 100;

const byLabel = (choices: Choice[]) => choices.sort((a, b) => a.label.localeCompare(b.label));

async function collect(
  session: Session,
  list: 'list_suppliers' | 'list_workers',
  most: number,
  choice: (item: unknown) => Choice | null,
  firstPage?: (choices: Choice[]) => void,
): Promise<Choice[]> {
  const out: Choice[] = [];
  let read = 0;
  // A list the token may not read is not asked: the field takes ids.
  if (!mayCall(session.reach, list)) {
    firstPage?.([]);
    return out;
  }
  try {
    for await (const item of session.client.items(list, { limit: CHOICE_PAGE, order: 'desc' })) {
      const c = choice(item);
      if (c) out.push(c);
      if (++read === CHOICE_PAGE) firstPage?.(byLabel([...out]));
      if (out.length >= most) break;
    }
  } catch {
    // A token that may not read the list: the field takes ids.
  }
  // Fewer than a page (or none readable): the first page is all there is.
  firstPage?.(byLabel([...out]));
  return byLabel(out);
}
