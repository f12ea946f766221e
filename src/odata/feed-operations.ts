import { Type, type TSchema } from 'typebox';
import { defineOperation, type AnyOperation } from '../operations/operation.js';
import type { Revelation, RevealedRecord } from '../operations/revelation.js';
import { literals } from '../records/record.js';
import { ENTITY_SETS, type EntitySet } from './entity-model.js';

/**
 * The feed's requests as the access trail and the metrics know them (DESIGN §4.18): one
 * operation per set, `odata:<Set>`, whose input is the request's options as accepted (property
 * names and directions as enumerated values, `$filter` as text, which the trail keeps as its
 * length, the `$skiptoken` as `cursor`, which it never keeps), and what it revealed. They are
 * not in the registry: nothing mounts them, the feed's route answers for them.
 */

/** What a feed answer carries for the trail: the records it revealed. */
export interface FeedData {
  revealed: RevealedRecord[];
}

const revealedBy = (_input: unknown, data: unknown): Revelation => ({
  records: (data as FeedData | undefined)?.revealed ?? [],
});

function inputOf(set: EntitySet): TSchema {
  const names = literals(set.properties.map((p) => p.name));
  const optional = Type.Optional;
  const navigation = set.navigation.map((n) => n.name);
  return Type.Object(
    {
      key: optional(Type.String()),
      navigation: optional(Type.String()),
      $select: optional(Type.Array(Type.Union([names, Type.Literal('*')]))),
      $filter: optional(Type.String()),
      $orderby: optional(
        Type.Array(Type.Object({ property: names, direction: literals(['asc', 'desc']) })),
      ),
      $top: optional(Type.Integer()),
      $skip: optional(Type.Integer()),
      $count: optional(Type.Boolean()),
      $expand: optional(Type.Array(navigation.length > 0 ? literals(navigation) : Type.Never())),
      cursor: optional(Type.String()),
    },
    { additionalProperties: false },
  );
}

function setOperation(set: EntitySet): AnyOperation {
  return defineOperation({
    name: `odata:${set.name}`,
    title: `OData ${set.name}`,
    description: `The OData feed's ${set.name}: the records of ${set.operationId}, as OData reads them.`,
    method: 'GET',
    path: `/odata/v4/${set.name}`,
    scope: set.scope,
    staffOnly: false,
    input: inputOf(set) as never,
    output: Type.Unknown(),
    // A key names a record of the set's type where the set is of that type's own records.
    idParams: set.revealedAs === 'id' ? { key: set.feedType } : {},
    reveals: revealedBy,
    run: () => Promise.reject(new Error('answered by the OData route')),
  });
}

function documentOperation(name: string, title: string): AnyOperation {
  return defineOperation({
    name,
    title,
    description: `${title}: what the token may read, described.`,
    method: 'GET',
    path: '/odata/v4/',
    scope: null,
    staffOnly: false,
    input: Type.Object({}, { additionalProperties: false }),
    output: Type.Unknown(),
    run: () => Promise.reject(new Error('answered by the OData route')),
  });
}

export const SERVICE_DOCUMENT_OPERATION = documentOperation(
  'odata:$service',
  'OData service document',
);

export const METADATA_OPERATION = documentOperation('odata:$metadata', 'OData $metadata');

/** A report set's request (Metrics, a saved query's set): its rows reveal no record. */
function reportOperation(name: string, scope: 'read:program' | 'read:financial'): AnyOperation {
  return defineOperation({
    name: `odata:${name}`,
    title: `OData ${name}`,
    description: `The OData feed's ${name}: a report's rows.`,
    method: 'GET',
    path: `/odata/v4/${name}`,
    scope,
    staffOnly: true,
    input: Type.Object(
      {
        $select: Type.Optional(Type.Array(Type.String())),
        $top: Type.Optional(Type.Integer()),
        $skip: Type.Optional(Type.Integer()),
        $count: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
    output: Type.Unknown(),
    reveals: revealedBy,
    run: () => Promise.reject(new Error('answered by the OData route')),
  });
}

export const METRICS_OPERATION = reportOperation('Metrics', 'read:program');
/** Every saved query's set is counted under this one name (metrics labels are a closed set). */
export const SAVED_QUERY_OPERATION = reportOperation('SavedQuery', 'read:financial');

/** The trail's operation of a saved query's set: its own name, `odata:SavedQuery_<id>`. */
export const savedQueryOperation = (set: string): AnyOperation => ({
  ...SAVED_QUERY_OPERATION,
  name: `odata:${set}`,
});

export const SET_OPERATIONS: ReadonlyMap<string, AnyOperation> = new Map(
  ENTITY_SETS.map((set) => [set.name, setOperation(set)]),
);

/** Every name the feed's requests are counted under (a closed set: metrics labels). */
export const FEED_OPERATION_NAMES: readonly string[] = [
  SERVICE_DOCUMENT_OPERATION.name,
  METADATA_OPERATION.name,
  METRICS_OPERATION.name,
  SAVED_QUERY_OPERATION.name,
  ...[...SET_OPERATIONS.values()].map((o) => o.name),
];
