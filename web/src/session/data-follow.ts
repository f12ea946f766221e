import type { Session } from './session.js';

/**
 * Names follow the data (issue 47): what the page reads once and keeps (workers' and suppliers'
 * names, the search boxes' choices, which lists hold records, the explorer's dimension values)
 * is kept per data mark, not per sign-in. Before each view it draws, the page asks the change
 * feed whether anything changed since the mark (one call, `limit=1`, from the cursor
 * `start=latest` gave); when something did, the mark is new, so the next view reads those again
 * and a rename or an erasure shows without a reload.
 */
/** The feed's present end, or null when it cannot be read (the mark then stays as it is). */
async function latest(session: Session): Promise<string | null> {
  try {
    const page = await session.client.call('list_changes', { start: 'latest' });
    return 'status' in page ? null : page.nextCursor;
  } catch {
    return null;
  }
}

/**
 * Asks the feed whether the data moved since the mark; if it did (or the cursor expired), makes
 * a new mark. Returns whether it moved. A failure to ask keeps the mark: the view draws with
 * what the page holds, and the next view asks again.
 */
export async function followData(session: Session): Promise<boolean> {
  const mark = session.data;
  if (mark.cursor === null) {
    mark.cursor = await latest(session);
    return false;
  }
  let moved: boolean;
  try {
    const page = await session.client.call('list_changes', { cursor: mark.cursor, limit: 1 });
    // A refusal (cursor_expired: tombstones went past it) counts as moved.
    moved = 'status' in page || page.items.length > 0 || page.hasMore;
    if (!('status' in page) && !moved) mark.cursor = page.nextCursor;
  } catch {
    return false;
  }
  if (!moved) return false;
  session.data = { cursor: await latest(session), generation: {} };
  return true;
}

/**
 * A cache of something read from the data, one value per data mark: `kept(session, make)` is
 * the value made for the session's current mark, made now if there is none.
 */
export function dataCache<T>(): (session: Session, make: () => T) => T {
  const kept = new WeakMap<object, T>();
  return (session, make) => {
    let value = kept.get(session.data.generation);
    if (value === undefined) {
      value = make();
      kept.set(session.data.generation, value);
    }
    return value;
  };
}
