/** Refusal codes of SPEC "Errors" (with DESIGN §4.2's correction) and the text each carries. */
export const REFUSAL_MESSAGES = {
  unknown_metric: 'No metric has that key. Read the catalog and use one of its metric keys.',
  metric_unavailable: 'A metric or dimension in the query is not enabled in this workspace.',
  unknown_dimension:
    'No dimension has that key. Read the catalog and use one of its dimension keys.',
  dimension_unsupported: 'A dimension cannot be used with the selected metrics.',
  mixed_views: 'The selected metrics read different views; split them into separate queries.',
  // A refusal from validateQuery carries its own message instead, saying which filter and why.
  bad_filter:
    'A filter names a dimension of another view or has the wrong number of values for its operator.',
  bad_order: 'An order key is not a selected metric or dimension.',
  invalid_query: 'The saved query no longer passes validation against the current catalog.',
  evaluative_not_available: 'This metric is evaluative and cannot be queried through the API.',
  invalid_cursor:
    'The cursor is malformed or was issued for another token, list, query, order or filters. Start again without a cursor.',
  stale_cursor: 'The catalog changed since this cursor was issued. Rerun the query from the start.',
  // The change feed's (DESIGN §4.13): the tombstones after this cursor were removed.
  cursor_expired:
    'This cursor is older than the tombstones the feed keeps, so deletions after it may be missing. Read the feed again from the start, without a cursor.',
  not_found: 'No saved query with that id is visible to this token.',
} as const;

export type RefusalCode = keyof typeof REFUSAL_MESSAGES;
