/**
 * The next page a subscription pushes (DESIGN §4.14): what `list_changes` answers its access key
 * after the position delivered through, run in process through the executor, so a subscription
 * sees exactly what that key would read (its role, scopes and visibility, tombstones included),
 * one page of the key's plan at a time.
 *
 * A subscription of one type follows `list_changes?type=`; one of every type follows the whole
 * feed; one of several types follows the whole feed and keeps the items of its types, so its
 * `nextCursor` resumes the whole feed (a superset of what it pushes: a receiver catching up with
 * `list_changes` skips the other types).
 */
import type { Principal } from '../auth/principal.js';
import { feedBinding, isFeedCursor, listChanges } from '../operations/changes.js';
import type { Executor } from '../operations/executor.js';
import type { FeedType } from '../store/sql/change-log.js';
import type { SubscriptionPosition } from '../store/sql/webhook-progress.js';

/** A change item as list_changes gives it (the fields the delivery reads). */
export interface FeedItem {
  type: string;
  version: number;
}

export interface SubscriptionPage {
  /** The items to push (empty when nothing of this subscription's changed). */
  items: FeedItem[];
  /** The cursor that resumes list_changes after this page. */
  nextCursor: string;
  /** The same, as a position. */
  next: SubscriptionPosition;
  hasMore: boolean;
}

/** Where a new subscription starts: after every change of the data version it was made at. */
export function startPosition(fromVersion: number): SubscriptionPosition {
  // (version, type, id) > (fromVersion + 1, '', ''): every change of a later version.
  return [fromVersion + 1, '', '', 0];
}

/** The type list_changes is asked to follow: the subscription's only one, or none. */
function followed(types: readonly string[] | null): FeedType | undefined {
  return types !== null && types.length === 1 ? (types[0] as FeedType) : undefined;
}

/**
 * The items of the kept types, each envelope's `source.path` naming where it now sits in the
 * delivery's body (`$.items[k]…`), as in the page it came from.
 */
function kept(items: readonly FeedItem[], types: ReadonlySet<string>): FeedItem[] {
  const out: FeedItem[] = [];
  items.forEach((item, i) => {
    if (!types.has(item.type)) return;
    const from = `$.items[${i}]`;
    const to = `$.items[${out.length}]`;
    out.push(from === to ? item : (renumbered(item, from, to) as FeedItem));
  });
  return out;
}

/** A copy of `value` with every provenance path under `from` moved under `to`. */
function renumbered(value: unknown, from: string, to: string): unknown {
  if (Array.isArray(value)) return value.map((v) => renumbered(v, from, to));
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(source))
    copy[key] =
      key === 'path' && typeof v === 'string' && 'operationId' in source && v.startsWith(from)
        ? to + v.slice(from.length)
        : renumbered(v, from, to);
  return copy;
}

/** The page after `position`, or `cursor_expired` when tombstones it would need are gone. */
export async function subscriptionPage(
  executor: Executor,
  principal: Principal,
  types: readonly string[] | null,
  position: SubscriptionPosition,
): Promise<SubscriptionPage | 'cursor_expired'> {
  const type = followed(types);
  const binding = feedBinding(principal.tokenId, type);
  const { cursors } = executor.deps;
  const input = { cursor: cursors.encode(binding, position), ...(type ? { type } : {}) };
  const answer = (await executor.runInProcess(listChanges, principal, input)) as
    | { items: FeedItem[]; hasMore: boolean; nextCursor: string }
    | { status: 'refused'; code: string };
  if ('status' in answer) {
    if (answer.code === 'cursor_expired') return 'cursor_expired';
    throw new Error(`list_changes refused a subscription's read: ${answer.code}`);
  }
  const next = cursors.decode(binding, answer.nextCursor);
  if (!isFeedCursor(next)) throw new Error('list_changes gave a cursor it cannot read');
  const keep = types !== null && type === undefined ? new Set(types) : null;
  return {
    items: keep ? kept(answer.items, keep) : answer.items,
    nextCursor: answer.nextCursor,
    next: [next[0], next[1], next[2], next[3] ?? 0],
    hasMore: answer.hasMore,
  };
}
