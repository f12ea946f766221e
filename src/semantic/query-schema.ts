import { Type, type Static } from 'typebox';

/** The request shapes of SPEC "POST /api/v1/reports/query"; a mismatch is 404 `not_found`. */
const Key = Type.String({ minLength: 1, maxLength: 64 });
const IsoDate = Type.String({ format: 'date' });

export const FilterSchema = Type.Object(
  {
    dimension: Key,
    operator: Type.Union([
      Type.Literal('eq'),
      Type.Literal('neq'),
      Type.Literal('in'),
      Type.Literal('gte'),
      Type.Literal('lte'),
      Type.Literal('between'),
    ]),
    // The count of values is not a schema matter: a wrong count is the bad_filter refusal.
    values: Type.Array(Type.Union([Type.String({ maxLength: 256 }), Type.Integer()]), {
      maxItems: 100,
    }),
  },
  { additionalProperties: false },
);

export const TimeGrainSchema = Type.Union([
  Type.Literal('day'),
  Type.Literal('week'),
  Type.Literal('month'),
  Type.Literal('quarter'),
  Type.Literal('year'),
]);

export const TimeRangeSchema = Type.Object(
  { from: IsoDate, to: IsoDate },
  { additionalProperties: false },
);

export const OrderItemSchema = Type.Object(
  { key: Key, direction: Type.Union([Type.Literal('asc'), Type.Literal('desc')]) },
  { additionalProperties: false },
);

export const QuerySchema = Type.Object(
  {
    metrics: Type.Array(Key, { minItems: 1, maxItems: 20, uniqueItems: true }),
    dimensions: Type.Optional(Type.Array(Key, { maxItems: 10, uniqueItems: true })),
    filters: Type.Optional(Type.Array(FilterSchema, { maxItems: 20 })),
    timeGrain: Type.Optional(Type.Union([TimeGrainSchema, Type.Null()])),
    timeRange: Type.Optional(Type.Union([TimeRangeSchema, Type.Null()])),
    order: Type.Optional(Type.Array(OrderItemSchema, { maxItems: 20 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { additionalProperties: false },
);

export const PeriodSchema = Type.Union([
  Type.Object(
    {
      kind: Type.Literal('relative'),
      unit: Type.Union([Type.Literal('month'), Type.Literal('quarter'), Type.Literal('year')]),
      offset: Type.Integer({ minimum: -24, maximum: 0 }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      kind: Type.Literal('quarter'),
      quarter: Type.Integer({ minimum: 1, maximum: 4 }),
      year: Type.Optional(Type.Integer({ minimum: 2000, maximum: 2100 })),
    },
    { additionalProperties: false },
  ),
]);

/** What a saved query stores (DESIGN §4.9): `{query, period?}`. */
export const SavedDefinitionSchema = Type.Object(
  { query: QuerySchema, period: Type.Optional(PeriodSchema) },
  { additionalProperties: false },
);

/** The query as run: defaults filled, any period resolved (SPEC `semanticQuery`, echoed in results). */
export const NormalizedQuerySchema = Type.Object(
  {
    metrics: Type.Array(Type.String()),
    dimensions: Type.Array(Type.String()),
    filters: Type.Array(FilterSchema),
    timeGrain: Type.Union([TimeGrainSchema, Type.Null()]),
    timeRange: Type.Union([TimeRangeSchema, Type.Null()]),
    order: Type.Array(OrderItemSchema),
    limit: Type.Integer(),
  },
  { additionalProperties: false },
);

export type Query = Static<typeof QuerySchema>;
export type NormalizedQuery = Static<typeof NormalizedQuerySchema>;
export type Filter = Static<typeof FilterSchema>;
export type Period = Static<typeof PeriodSchema>;
export type TimeRange = Static<typeof TimeRangeSchema>;
export type TimeGrain = Static<typeof TimeGrainSchema>;
export type SavedDefinition = Static<typeof SavedDefinitionSchema>;

/**
 * The rule a schema cannot state (DESIGN §4.2) that a definition breaks, as a sentence naming the
 * members (never their values), or null: `timeRange.from` not after `to`, and not both `period`
 * and a `query.timeRange`. A broken rule is 404 `not_found`.
 */
export function incoherence(definition: { query: Query; period?: Period }): string | null {
  const range = definition.query.timeRange;
  if (range && range.from > range.to)
    return 'Member `query.timeRange.from` must be on or before `query.timeRange.to`.';
  if (definition.period !== undefined && range)
    return 'Send `period` or `query.timeRange`, not both.';
  return null;
}

export function definitionIsCoherent(definition: { query: Query; period?: Period }): boolean {
  return incoherence(definition) === null;
}
