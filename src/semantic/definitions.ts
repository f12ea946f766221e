import { Type, type Static } from 'typebox';

/**
 * Metric definitions are structured data, never SQL: a view, an aggregation over one of the
 * view's columns, optional conditions on its columns, a unit (one of the closed set SPEC names for
 * `metricDefinitions`: cents, count, hours, days, ratio), a label and a description. Definitions from the
 * `semantic_catalog` table are checked against MetricDefinitionSchema and compiled by the same
 * compiler as the defaults, so stored text can only ever become a bound parameter.
 */
const Name = Type.String({ pattern: '^[a-z][a-z0-9_]{0,62}$' });
const Value = Type.Union([Type.String(), Type.Integer()]);

export const ConditionSchema = Type.Object(
  {
    column: Name,
    op: Type.Union([
      Type.Literal('eq'),
      Type.Literal('in'),
      Type.Literal('neq'),
      Type.Literal('not_null'),
    ]),
    values: Type.Optional(Type.Array(Value, { maxItems: 50 })),
  },
  { additionalProperties: false },
);

export const AggregateSchema = Type.Object(
  {
    agg: Type.Union([
      Type.Literal('sum'),
      Type.Literal('count'),
      Type.Literal('count_distinct'),
      Type.Literal('avg'),
      Type.Literal('min'),
      Type.Literal('max'),
    ]),
    /** A column of the view; omitted for count. */
    column: Type.Optional(Name),
    where: Type.Optional(Type.Array(ConditionSchema, { maxItems: 10 })),
  },
  { additionalProperties: false },
);

export const UnitSchema = Type.Union([
  Type.Literal('cents'),
  Type.Literal('count'),
  Type.Literal('hours'),
  Type.Literal('days'),
  Type.Literal('ratio'),
]);

export const MetricDefinitionSchema = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 200 }),
    /**
     * What the figure means, for the catalog (list_catalog). Optional in a `semantic_catalog`
     * row: a definition without one is described from its measure (`describeMetric`).
     */
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    view: Name,
    unit: UnitSchema,
    /** The value: one aggregate, or a ratio of two. */
    measure: Type.Union([
      AggregateSchema,
      Type.Object(
        { ratio: Type.Tuple([AggregateSchema, AggregateSchema]) },
        { additionalProperties: false },
      ),
    ]),
    /** Divides the value (minutes to hours: 60). */
    scale: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    /** Multiplies the value (cents per minute to cents per hour: 60). */
    factor: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    evaluative: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export type Condition = Static<typeof ConditionSchema>;
export type Aggregate = Static<typeof AggregateSchema>;
export type Unit = Static<typeof UnitSchema>;
export type MetricDefinition = Static<typeof MetricDefinitionSchema>;

export interface Metric extends MetricDefinition {
  key: string;
}

export function isRatio(
  measure: MetricDefinition['measure'],
): measure is { ratio: [Aggregate, Aggregate] } {
  return 'ratio' in measure;
}
