import { Type, type TObject, type TSchema } from 'typebox';
import type { Scope } from '../auth/scopes.js';
import { listBinding } from '../paging/cursor.js';
import type { RecordType } from '../records/record.js';
import type { Keyset, ResourceSource, Row } from '../store/store.js';
import { defineOperation, type OperationContext } from './operation.js';
import {
  conditionsOf,
  filtersSentence,
  givenFilters,
  idParamsOf,
  filterRules,
  type ListFilters,
} from './list-filters.js';
import { GetInput, ListInput, OrderParam } from './params.js';
import { ListRefusalSchema, refusal } from './refusal.js';
import type { FeedType } from '../store/sql/change-log.js';
import { revealedItem, revealedItems } from './revelation.js';

export function pageSchema(item: TObject) {
  return Type.Object(
    {
      items: Type.Array(item),
      hasMore: Type.Boolean(),
      nextCursor: Type.Union([Type.String(), Type.Null()]),
      order: OrderParam,
    },
    { additionalProperties: false },
  );
}

export interface ResourceSpec {
  name: string;
  path: string;
  scope: Scope;
  /** The MCP tool's short human name. */
  title: string;
  description: string;
  record: RecordType;
  /** The record's type, as the change feed and the access trail name it. */
  type: FeedType;
  source: Omit<ResourceSource, 'columns'>;
  /** The list's filters by parameter name (DESIGN §4.15); none when absent. */
  filters?: ListFilters;
}

export function isKeyset(value: unknown): value is Keyset {
  return Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string');
}

function sourceOf(spec: Pick<ResourceSpec, 'record' | 'source'>): ResourceSource {
  return { ...spec.source, columns: spec.record.columns };
}

/**
 * The parts every resource operation shares: a GET, open to every role its visibility allows,
 * whose answer depends on nothing but the store, the token and the input.
 */
function resourceHeader(
  spec: Pick<ResourceSpec, 'name' | 'path' | 'scope' | 'title' | 'description'>,
) {
  return {
    name: spec.name,
    title: spec.title,
    method: 'GET' as const,
    path: spec.path,
    scope: spec.scope,
    staffOnly: false,
    // Records change only with the store (a load, an import): repeats are answered from the cache.
    cacheable: true,
    description: spec.description,
  };
}

/** SPEC's list parameters and the list's filters, each optional, nothing else. */
function listInput(filters: ListFilters) {
  const properties = Object.fromEntries(
    Object.entries(filters).map(([name, filter]) => [
      name,
      Type.Optional(Type.With(filter.schema, { description: filter.description })),
    ]),
  );
  return Type.Object({ ...ListInput.properties, ...properties }, { additionalProperties: false });
}

/** A keyset-paginated list of one resource, filtered by the caller's visibility, then its filters. */
export function listOperation(spec: ResourceSpec) {
  const source = sourceOf(spec);
  const filters = spec.filters ?? {};
  return defineOperation({
    ...resourceHeader(spec),
    description: spec.description + filtersSentence(filters),
    input: listInput(filters),
    output: pageSchema(spec.record.schema),
    refusal: ListRefusalSchema,
    refine: (params) => filterRules(filters, params),
    idParams: idParamsOf(filters),
    reveals: (_input, data) => revealedItems(spec.type, data),
    async run(ctx, params) {
      const order = params.order ?? 'asc';
      const pageSize = Math.min(params.limit ?? ctx.workspace.pageSize, ctx.workspace.pageSize);
      const given = givenFilters(filters, params);
      const binding = listBinding(ctx.principal.tokenId, spec.name, order, given);
      let after: Keyset | null = null;
      if (params.cursor !== undefined) {
        const decoded = ctx.cursors.decode(binding, params.cursor);
        if (!isKeyset(decoded)) return refusal('invalid_cursor', spec.name);
        after = decoded;
      }
      const rows = await ctx.store.listPage(source, {
        workspaceId: ctx.workspace.id,
        viewer: ctx.principal,
        after,
        order,
        limit: pageSize + 1,
        conditions: conditionsOf(filters, given),
      });
      const hasMore = rows.length > pageSize;
      const page = hasMore ? rows.slice(0, pageSize) : rows;
      const pii = ctx.principal.scopes.has('read:pii');
      const items = page.map((row, i) =>
        spec.record.map(row, { operationId: spec.name, path: `$.items[${i}]`, pii }),
      );
      const last = page[page.length - 1];
      return {
        items,
        hasMore,
        nextCursor: hasMore ? ctx.cursors.encode(binding, [last.created_at, last.id]) : null,
        order,
      };
    },
  });
}

function itemSchema(item: TObject) {
  return Type.Object({ item: Type.Union([item, Type.Null()]) }, { additionalProperties: false });
}

/** A get by id: `{item: null}` alike for absent, foreign and invisible ids. */
export function getOperation(spec: ResourceSpec) {
  const source = sourceOf(spec);
  return defineOperation({
    ...resourceHeader(spec),
    input: GetInput,
    idParams: { id: spec.type },
    output: itemSchema(spec.record.schema),
    reveals: (_input, data) => revealedItem(spec.type, data),
    async run(ctx, { id }) {
      const row = await ctx.store.getVisible(source, ctx.workspace.id, ctx.principal, id);
      const pii = ctx.principal.scopes.has('read:pii');
      return {
        item: row ? spec.record.map(row, { operationId: spec.name, path: '$.item', pii }) : null,
      };
    },
  });
}

/**
 * A record with its parts (an invoice with its lines, a timesheet with its entries): the item is
 * `{<header>, <parts>, <parts>Truncated}` and, with `countKey`, the count of visible parts.
 */
export interface WithPartsSpec extends ResourceSpec {
  header: string;
  parts: { key: string; record: RecordType; max: number; countKey?: string };
  /** Reads at most `limit` parts of the record `row`, and their count when it is known. */
  readParts(
    ctx: OperationContext,
    row: Row,
    limit: number,
  ): Promise<{ rows: Row[]; count?: number }>;
}

/** A get of a record with its parts: `{item: null}` alike for absent, foreign and invisible ids. */
export function getWithPartsOperation(spec: WithPartsSpec) {
  const source = sourceOf(spec);
  const { key, record, max, countKey } = spec.parts;
  const properties: Record<string, TSchema> = {
    [spec.header]: spec.record.schema,
    [key]: Type.Array(record.schema),
    [`${key}Truncated`]: Type.Boolean(),
  };
  if (countKey) properties[countKey] = Type.Integer({ minimum: 0 });
  return defineOperation({
    ...resourceHeader(spec),
    input: GetInput,
    idParams: { id: spec.type },
    output: itemSchema(Type.Object(properties, { additionalProperties: false })),
    reveals: (_input, data) => revealedItem(spec.type, data, spec.header),
    async run(ctx, { id }) {
      const row = await ctx.store.getVisible(source, ctx.workspace.id, ctx.principal, id);
      if (!row) return { item: null };
      const { rows, count } = await spec.readParts(ctx, row, max + 1);
      const pii = ctx.principal.scopes.has('read:pii');
      const at = (path: string) => ({ operationId: spec.name, path, pii });
      const item: Record<string, unknown> = {
        [spec.header]: spec.record.map(row, at(`$.item.${spec.header}`)),
        [key]: rows.slice(0, max).map((part, i) => record.map(part, at(`$.item.${key}[${i}]`))),
        [`${key}Truncated`]: (count ?? rows.length) > max,
      };
      if (countKey) item[countKey] = count;
      return { item };
    },
  });
}
