import type { IdKind } from '../operations/operation.js';
import { FEED_TYPES } from '../store/sql/change-log.js';
import type { IdTable, ResourceReads } from '../store/store.js';
import type { IdClaim } from './kept-params.js';
import { typedText } from './kept-params.js';

/**
 * Whether values given for id parameters name something of their kind (DESIGN §4.17): the trail
 * asks before it writes an event whose answer did not show them genuine (an empty page, a get
 * that found nothing, a refusal). A value that names nothing is text a person typed.
 */
export interface IdLookup {
  /** Which of `values` name something of `kind`. */
  existing(kind: IdKind, values: readonly string[]): Promise<Set<string>>;
}

/** Nothing is known: every claim not shown by its answer is kept as its length. */
export const NO_LOOKUP: IdLookup = { existing: async () => new Set() };

/** The tables a kind's ids are in; none for kinds only an answer can show (a client, a code). */
const TABLES_OF: Partial<Record<IdKind, readonly IdTable[]>> = {
  ...Object.fromEntries(Object.entries(FEED_TYPES).map(([type, table]) => [type, [table]])),
  saved_query: ['saved_queries'],
  approval_subject: ['timesheets', 'expenses'],
};

/**
 * Records' ids through the store (a primary-key lookup per value, in one statement per table),
 * and operations' names from the registry's list.
 */
export function storeIdLookup(
  store: Pick<ResourceReads, 'existingIds'>,
  operationNames: Iterable<string>,
): IdLookup {
  const operations = new Set(operationNames);
  return {
    async existing(kind, values) {
      if (kind === 'operation') return new Set(values.filter((value) => operations.has(value)));
      const found = new Set<string>();
      for (const table of TABLES_OF[kind] ?? [])
        for (const id of await store.existingIds(table, values)) found.add(id);
      return found;
    },
  };
}

/** Ids known to name something, remembered up to this many per kind (then forgotten at once). */
const KNOWN_PER_KIND = 10_000;

/**
 * Settles claims (kept-params.ts): a value that names something of its kind stays as it is, any
 * other becomes its length. One lookup per kind for what is not already known to name something.
 */
export class ClaimSettler {
  private readonly known = new Map<IdKind, Set<string>>();

  constructor(private readonly lookup: IdLookup) {}

  async settle(claims: readonly IdClaim[]): Promise<void> {
    const asked = new Map<IdKind, Set<string>>();
    for (const claim of claims)
      if (!this.knownOf(claim.kind).has(claim.value)) {
        const values = asked.get(claim.kind) ?? new Set<string>();
        asked.set(claim.kind, values.add(claim.value));
      }
    for (const [kind, values] of asked) {
      const known = this.knownOf(kind);
      const found = await this.lookup.existing(kind, [...values]);
      if (known.size + found.size > KNOWN_PER_KIND) known.clear();
      for (const value of found) known.add(value);
    }
    for (const claim of claims)
      if (!this.knownOf(claim.kind).has(claim.value))
        (claim.holder as Record<string, unknown>)[claim.key] = typedText(claim.value);
  }

  private knownOf(kind: IdKind): Set<string> {
    let known = this.known.get(kind);
    if (!known) this.known.set(kind, (known = new Set()));
    return known;
  }
}
