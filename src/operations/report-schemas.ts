import { Type } from 'typebox';
import { ProvenanceSchema } from '../provenance.js';
import { NormalizedQuerySchema } from '../semantic/query-schema.js';
import { UnitSchema } from '../semantic/definitions.js';
import { SavedQueryKindSchema } from './params.js';

/** Output shapes of the report operations (SPEC "Catalog", "Query result", "Saved query item"). */
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const CatalogSchema = Type.Object(
  {
    metrics: Type.Array(
      Type.Object(
        {
          key: Type.String(),
          label: Type.String(),
          /** Additive to SPEC: what the figure means, and its unit (as in metricDefinitions). */
          description: Type.String(),
          unit: UnitSchema,
          dimensions: Type.Array(Type.String()),
          evaluative: Type.Boolean(),
        },
        { additionalProperties: false },
      ),
    ),
    dimensions: Type.Array(
      Type.Object(
        {
          key: Type.String(),
          label: Type.String(),
          /** Additive to SPEC: what a value is; listed values are named. */
          description: Type.String(),
          type: Type.Union([Type.Literal('categorical'), Type.Literal('time')]),
        },
        { additionalProperties: false },
      ),
    ),
    catalogVersion: Type.String({ pattern: '^cv1-[0-9a-f]+$' }),
    source: Type.Union([
      Type.Literal('program_config'),
      Type.Literal('semantic_catalog_table'),
      Type.Literal('default'),
    ]),
  },
  { additionalProperties: false },
);

const resultProperties = {
  status: Type.Union([Type.Literal('ok'), Type.Literal('empty')]),
  rows: Type.Array(
    Type.Record(
      Type.String(),
      Type.Union([Type.Number(), Type.String(), Type.Null(), ProvenanceSchema]),
    ),
  ),
  columns: Type.Array(Type.String()),
  truncated: Type.Boolean(),
  truncatedBy: Type.Union([Type.Literal('query_limit'), Type.Literal('row_budget'), Type.Null()]),
  nextCursor: Nullable(Type.String()),
  catalogVersion: Type.String(),
  metricDefinitions: Type.Array(
    Type.Object(
      { key: Type.String(), label: Type.String(), unit: UnitSchema, view: Type.String() },
      { additionalProperties: false },
    ),
  ),
  semanticQuery: NormalizedQuerySchema,
};

export const QueryResultSchema = Type.Object(resultProperties, { additionalProperties: false });

export const SavedQueryResultSchema = Type.Object(
  {
    savedQuery: Type.Object(
      { id: Type.String(), name: ProvenanceSchema, kind: Type.String() },
      { additionalProperties: false },
    ),
    ...resultProperties,
  },
  { additionalProperties: false },
);

/** Refusals of report runs always carry closestMetrics and catalogVersion (DESIGN §4.8). */
export const ReportRefusalSchema = Type.Object(
  {
    status: Type.Literal('refused'),
    code: Type.String(),
    message: ProvenanceSchema,
    closestMetrics: Type.Array(Type.String()),
    catalogVersion: Type.String(),
  },
  { additionalProperties: false },
);

export const SavedQueryItemSchema = Type.Object(
  {
    id: Type.String(),
    kind: SavedQueryKindSchema,
    name: ProvenanceSchema,
    dashboardId: Nullable(Type.String()),
    pinnedAt: Type.String(),
  },
  { additionalProperties: false },
);

export const SavedQueryPageSchema = Type.Object(
  {
    items: Type.Array(SavedQueryItemSchema),
    hasMore: Type.Boolean(),
    nextCursor: Nullable(Type.String()),
    order: Type.Literal('asc'),
  },
  { additionalProperties: false },
);
