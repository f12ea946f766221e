import { isProvenance } from '../dom.js';
import type { Session } from '../session/session.js';

/** One option of a search field: the id the API filters by, and what a person reads. */
export interface Choice {
  value: string;
  label: string;
}

/** How many workers the search offers by name; past them, an id is typed. */
export const MAX_WORKER_CHOICES = 2000;

const suppliers = new WeakMap<Session, Promise<Choice[]>>();
const workers = new WeakMap<Session, Promise<Choice[]>>();

/** Every supplier this token may list, by name (and code), sorted by name; read once a sign-in. */
export function supplierChoices(session: Session): Promise<Choice[]> {
  let loaded = suppliers.get(session);
  if (!loaded) {
    loaded = collect(session, 'list_suppliers', Infinity, (item) => {
      const { id, code, name } = item as { id?: unknown; code?: unknown; name?: unknown };
      if (typeof id !== 'string') return null;
      const codeText = isProvenance(code) ? code.value : '';
      const nameText = isProvenance(name) ? name.value : codeText;
      return { value: id, label: codeText ? `${nameText} (${codeText})` : nameText };
    });
    suppliers.set(session, loaded);
  }
  return loaded;
}

/**
 * Workers this token may list (the newest first, at most MAX_WORKER_CHOICES), labelled
 * "name · id" where the token may read names (read:pii), by id alone otherwise.
 */
export function workerChoices(session: Session): Promise<Choice[]> {
  let loaded = workers.get(session);
  if (!loaded) {
    loaded = collect(session, 'list_workers', MAX_WORKER_CHOICES, (item) => {
      const { id, displayName } = item as { id?: unknown; displayName?: unknown };
      if (typeof id !== 'string') return null;
      return {
        value: id,
        label: isProvenance(displayName) ? `${displayName.value} · ${id}` : id,
      };
    });
    workers.set(session, loaded);
  }
  return loaded;
}

async function collect(
  session: Session,
  list: 'list_suppliers' | 'list_workers',
  most: number,
  choice: (item: unknown) => Choice | null,
): Promise<Choice[]> {
  const out: Choice[] = [];
  try {
    for await (const item of session.client.items(list, { limit: 100, order: 'desc' })) {
      const c = choice(item);
      if (c) out.push(c);
      if (out.length >= most) break;
    }
  } catch {
    // A token that may not read the list: the field takes ids.
  }
  return out.sort((a, b) => a.label.localeCompare(b.label));
}
