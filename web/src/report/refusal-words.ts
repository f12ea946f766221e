/**
 * What a refusal means, in one plain sentence per code (SPEC "Refusals", docs/api.md), shown
 * above the service's own message, which says the details (for bad_filter: which filter, why).
 * The codes are those a report run or a saved query can meet.
 */
const REFUSAL_WORDS: Record<string, string> = {
  unknown_metric: 'This workspace’s catalog has no metric by that name.',
  metric_unavailable:
    'A metric or dimension of this query is not switched on in this workspace (it may have been turned off since the query was made).',
  evaluative_not_available:
    'This metric is an evaluation (a score) and is never given out through the API.',
  mixed_views:
    'The chosen metrics are counted from different data, so they cannot share one query: run them as separate queries.',
  unknown_dimension: 'A dimension of this query does not exist in the catalog.',
  dimension_unsupported: 'A chosen dimension cannot be used with the chosen metrics.',
  bad_filter:
    'A filter’s values do not fit its dimension or its operator: the message below says which filter and why.',
  bad_order: 'The result can only be ordered by one of its chosen metrics or dimensions.',
  invalid_query:
    'This saved query no longer fits the workspace’s catalog and needs to be saved again.',
  invalid_cursor:
    'The rest of this answer can no longer be fetched (its place marker belongs to another query or sign-in): run the query again.',
  stale_cursor:
    'The catalog changed while this answer was being read, so it cannot go on: run the query again from the start.',
  cursor_expired:
    'Deletions since this point are no longer kept, so the changes cannot go on from it: read them again from the start.',
  not_found: 'No saved query with that id is visible to you.',
};

/** The sentence of a refusal code; a code this page does not know gets a general one. */
export const refusalWords = (code: string): string =>
  Object.hasOwn(REFUSAL_WORDS, code)
    ? REFUSAL_WORDS[code]
    : 'The service refused this request; its message below says why.';
