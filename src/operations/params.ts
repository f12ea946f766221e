import { Type, type Static } from 'typebox';
import { literals } from '../records/record.js';
import { SAVED_QUERY_KINDS } from '../records/resources.js';
import { PeriodSchema, QuerySchema } from '../semantic/query-schema.js';

/**
 * The parameter shapes operations share, each written once: cursors, list paging, gets by id,
 * saved-query kinds, report bodies. A mismatch is 404 `not_found` (the executor validates).
 */

/** An opaque signed cursor, as `nextCursor` gave it. */
export const CursorParam = Type.String({ minLength: 1, maxLength: 512 });

export const OrderParam = Type.Union([Type.Literal('asc'), Type.Literal('desc')]);
export type Order = Static<typeof OrderParam>;

/** The common list parameters: limit (capped by the workspace's page size), cursor, order. */
export const ListInput = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
    cursor: Type.Optional(CursorParam),
    order: Type.Optional(OrderParam),
  },
  { additionalProperties: false },
);
export type ListParams = Static<typeof ListInput>;

export const GetInput = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

export const SavedQueryKindSchema = literals(SAVED_QUERY_KINDS);

export const SavedQueryListInput = Type.Object(
  {
    kind: Type.Optional(SavedQueryKindSchema),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
    cursor: Type.Optional(CursorParam),
  },
  { additionalProperties: false },
);

/** The body of run_semantic_query: a query, optionally a named period, optionally a cursor. */
export const SemanticQueryBody = Type.Object(
  { query: QuerySchema, period: Type.Optional(PeriodSchema), cursor: Type.Optional(CursorParam) },
  { additionalProperties: false },
);

export const RunSavedQueryBody = Type.Object(
  {
    savedQueryId: Type.String({ minLength: 1, maxLength: 64 }),
    cursor: Type.Optional(CursorParam),
  },
  { additionalProperties: false },
);

export const NoParams = Type.Object({}, { additionalProperties: false });
