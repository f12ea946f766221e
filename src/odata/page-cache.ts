import { LRUCache } from 'lru-cache';
import type { Principal } from '../auth/principal.js';
import type { RevealedRecord } from '../operations/revelation.js';
import { digestOf, SEEN_KEYS } from '../operations/result-cache.js';

/**
 * Answers of the feed already written, by everything they depend on: the store's change stamp
 * (any write empties them, as it does the executor's), the principal, the request's path and
 * options (the key in the URL aside: the principal says whose), the OData version and the page
 * size. As the executor's answer cache, an answer is kept from its second request on (a one-pass
 * export neither pays for keeping its pages nor evicts what is read again: a dashboard's refresh),
 * and not at all when answer caching is off (VMS_READ_CACHE=off). A page larger than
 * MAX_PAGE_BYTES is streamed and never kept.
 */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;
const CACHE_BYTES = 32 * 1024 * 1024;

export interface CachedPage {
  body: Buffer;
  headers: Record<string, string>;
  /** What the access trail is told of each request it answers. */
  input: unknown;
  revealed: RevealedRecord[];
}

export class PageCache {
  private readonly pages = new LRUCache<string, CachedPage>({
    maxSize: CACHE_BYTES,
    maxEntrySize: MAX_PAGE_BYTES,
    sizeCalculation: (page) => page.body.length + 1024,
  });
  private readonly seen = new LRUCache<string, true>({ max: SEEN_KEYS });

  constructor(readonly enabled: boolean) {}

  /** The key of a request, or null when nothing may be kept for it. */
  keyOf(principal: Principal, request: readonly unknown[]): string | null {
    if (!this.enabled || principal.changeStamp === undefined) return null;
    const { changeStamp, tokenId, workspaceId, role, workerId, supplierId, scopes } = principal;
    const who = [tokenId, workspaceId, role, workerId, supplierId, [...scopes].sort()];
    return digestOf(JSON.stringify([changeStamp, who, request]));
  }

  get(key: string): CachedPage | undefined {
    return this.pages.get(key);
  }

  /** Keeps a page written for `key` once it was asked before. */
  offer(key: string, page: CachedPage): void {
    if (this.seen.delete(key)) this.pages.set(key, page);
    else this.seen.set(key, true);
  }
}
