import { isFeedCursor, type FeedCursor } from '../operations/changes.js';
import type { RevealedRecord } from '../operations/revelation.js';
import type { FeedPosition } from '../store/store.js';
import { ENTITY_SETS, type EntitySet } from './entity-model.js';
import { annotation, entityWriter } from './json-writer.js';
import { ODataError } from './query-options.js';
import { Revealed, type FeedContext, type Sink } from './feed-context.js';
import type { SetQuery } from './set-query.js';

/**
 * Change tracking (DESIGN §4.18): `Prefer: odata.track-changes` on a set gives its last page an
 * `@odata.deltaLink`, and a GET of it answers what `list_changes` (4.11) shows this token of the
 * set's type since: records at their latest version, and tombstones (4.13) as deleted entities in
 * the form of the OData version answered. The `$deltatoken` is a change-feed cursor (signed, 4.5),
 * bound to the token, the set and the `$select` it was made with.
 */

/** The sets whose changes the change feed follows: those of its record types' lists. */
export const isTracked = (set: EntitySet) => set.revealedAs === 'id';

export function deltaBinding(tokenId: string, set: EntitySet, select: string | null): string {
  return JSON.stringify(['odata-delta', tokenId, set.name, select]);
}

/** Where the change feed stands now: every change so far is at or before `version`. */
export async function feedNow(ctx: FeedContext): Promise<[version: number, horizon: number]> {
  const now = await ctx.bounded(
    ctx.store.changesPage({
      workspaceId: ctx.principal.workspaceId,
      viewer: ctx.principal,
      sources: [],
      after: [0, '', ''],
      knownHorizon: null,
      limit: 1,
    }),
  );
  if (now === 'cursor_expired') throw new Error('a read from the start never expires');
  return [now.version, now.horizon];
}

/**
 * Whether anything of `set` this token can read changed after data version `version` (its parts
 * count under their timesheet or invoice): a read through nextLinks that began at `version` would
 * then mix versions (DESIGN §4.18: one consistent data version).
 */
export async function changedSince(
  ctx: FeedContext,
  set: EntitySet,
  version: number,
): Promise<boolean> {
  const { principal } = ctx;
  const records = ENTITY_SETS.find((s) => s.feedType === set.feedType && isTracked(s)) ?? set;
  if (principal.role !== 'staff' && records.source.visibility[principal.role] === 'none')
    return false;
  const read = await ctx.bounded(
    ctx.store.changesPage({
      workspaceId: principal.workspaceId,
      viewer: principal,
      sources: [{ type: records.feedType, source: records.source }],
      after: [version + 1, '', ''],
      knownHorizon: null,
      limit: 1,
    }),
  );
  return read === 'cursor_expired' || read.changes.length > 0;
}

/** The token of a delta from where the feed stood (`feedNow`) when a read began. */
export const deltaTokenAfter = (since: readonly [number, number]): FeedCursor => [
  since[0] + 1,
  '',
  '',
  since[1],
];

/** A tombstone as a deleted entity (OData JSON 4.0 §15, 4.01 §15): `changed` when no longer visible. */
function deletedEntity(ctx: FeedContext, set: EntitySet, id: string, reason: string): string {
  const entityId = `${ctx.base}${set.name}('${encodeURIComponent(id.replace(/'/g, "''"))}')`;
  const why = reason === 'deleted' ? 'deleted' : 'changed';
  return ctx.version === '4.01'
    ? JSON.stringify({ '@removed': { reason: why }, '@id': entityId })
    : JSON.stringify({
        '@odata.context': `${ctx.base}$metadata#${set.name}/$deletedEntity`,
        id: entityId,
        reason: why,
      });
}

/** Writes one page of a delta; returns what it revealed. */
export async function writeDelta(
  ctx: FeedContext,
  query: SetQuery,
  request: { deltatoken: string; path: string; linkOptions: string; selectText: string | null },
  sink: Sink,
): Promise<RevealedRecord[]> {
  const { set } = query;
  const binding = deltaBinding(ctx.principal.tokenId, set, request.selectText);
  const decoded = ctx.cursors.decode(binding, request.deltatoken);
  if (!isFeedCursor(decoded))
    throw new ODataError(
      'invalid_cursor',
      'The $deltatoken was issued to another token or for another query; read the set again.',
      '$deltatoken',
    );
  const knownHorizon = decoded[3] ?? 0;
  const { principal } = ctx;
  const visible = principal.role === 'staff' || set.source.visibility[principal.role] !== 'none';
  const read = await ctx.bounded(
    ctx.store.changesPage({
      workspaceId: principal.workspaceId,
      viewer: principal,
      sources: visible ? [{ type: set.feedType, source: set.source }] : [],
      after: [decoded[0], decoded[1], decoded[2]],
      knownHorizon,
      limit: ctx.pageSize + 1,
    }),
  );
  if (read === 'cursor_expired')
    throw new ODataError(
      'cursor_expired',
      'Changes this $deltatoken would follow are no longer kept: read the set again.',
      '$deltatoken',
    );
  const more = read.changes.length > ctx.pageSize;
  const page = more ? read.changes.slice(0, ctx.pageSize) : read.changes;
  const write = entityWriter(query.properties);
  const revealed = new Revealed();
  const personal = query.properties.some((p) => p.personal);
  const entities = page.map((change) => {
    if (change.row === null) {
      revealed.addTombstone(set.feedType, change.id);
      return deletedEntity(ctx, set, change.id, change.removed ?? 'deleted');
    }
    revealed.add(set, change.row, personal);
    return write(change.row);
  });
  const last = page[page.length - 1];
  const resume: FeedPosition = last
    ? [last.version, last.type, last.id]
    : [decoded[0], decoded[1], decoded[2]];
  const token = ctx.cursors.encode(binding, [...resume, knownHorizon] satisfies FeedCursor);
  const options = request.linkOptions === '' ? '' : `${request.linkOptions}&`;
  const link = `${ctx.base}${request.path}?${options}$deltatoken=${token}`;
  const context = `${ctx.base}$metadata#${set.name}/$delta`;
  await sink(
    `{${annotation('@odata.context', context)}"value":[${entities.join(',')}],${annotation(more ? '@odata.nextLink' : '@odata.deltaLink', link).slice(0, -1)}}`,
  );
  return revealed.list();
}
