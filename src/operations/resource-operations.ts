import { Type, type TObject } from 'typebox';
import type { Scope } from '../auth/scopes.js';
import { listBinding } from '../paging/cursor.js';
import type { RecordType } from '../records/record.js';
import type { Keyset, ResourceSource } from '../store/store.js';
import type { Operation, OperationContext } from './operation.js';
import { ListRefusalSchema, refusal } from './refusal.js';

/** The common list parameters of SPEC "Endpoints". */
export const ListInput = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  },
  { additionalProperties: false },
);
export interface ListParams {
  limit?: number;
  cursor?: string;
  order?: 'asc' | 'desc';
}

export const GetInput = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

export function pageSchema(item: TObject) {
  return Type.Object(
    {
      items: Type.Array(item),
      hasMore: Type.Boolean(),
      nextCursor: Type.Union([Type.String(), Type.Null()]),
      order: Type.Union([Type.Literal('asc'), Type.Literal('desc')]),
    },
    { additionalProperties: false },
  );
}

export interface ResourceSpec {
  name: string;
  path: string;
  scope: Scope;
  description: string;
  record: RecordType;
  source: Omit<ResourceSource, 'columns'>;
}

function isKeyset(value: unknown): value is Keyset {
  return Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string');
}

export function sourceOf(spec: Pick<ResourceSpec, 'record' | 'source'>): ResourceSource {
  return { ...spec.source, columns: spec.record.columns };
}

/** The parts every resource operation shares: a GET, open to every role its visibility allows. */
export function resourceHeader(
  spec: Pick<ResourceSpec, 'name' | 'path' | 'scope' | 'description'>,
) {
  return {
    name: spec.name,
    method: 'GET' as const,
    path: spec.path,
    scope: spec.scope,
    staffOnly: false,
    description: spec.description,
  };
}

/** A keyset-paginated list of one resource, filtered by the caller's visibility. */
export function listOperation(spec: ResourceSpec): Operation<ListParams> {
  const source = sourceOf(spec);
  return {
    ...resourceHeader(spec),
    input: ListInput,
    output: Type.Union([pageSchema(spec.record.schema), ListRefusalSchema]),
    async run(ctx: OperationContext, params) {
      const order = params.order ?? 'asc';
      const pageSize = Math.min(params.limit ?? ctx.workspace.pageSize, ctx.workspace.pageSize);
      const binding = listBinding(ctx.principal.tokenId, spec.name, order);
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
  };
}

export function itemSchema(item: TObject) {
  return Type.Object({ item: Type.Union([item, Type.Null()]) }, { additionalProperties: false });
}

/** A get by id: `{item: null}` alike for absent, foreign and invisible ids. */
export function getOperation(spec: ResourceSpec): Operation<{ id: string }> {
  const source = sourceOf(spec);
  return {
    ...resourceHeader(spec),
    input: GetInput,
    output: itemSchema(spec.record.schema),
    async run(ctx, { id }) {
      const row = await ctx.store.getVisible(source, ctx.workspace.id, ctx.principal, id);
      const pii = ctx.principal.scopes.has('read:pii');
      return {
        item: row ? spec.record.map(row, { operationId: spec.name, path: '$.item', pii }) : null,
      };
    },
  };
}
