import { Type, type TLiteral, type TObject, type TSchema, type TUnion } from 'typebox';
import { PERSONAL_DATA_MARK, provenance, ProvenanceSchema } from '../provenance.js';

/**
 * A record field, declared once: the column it is read from and how it leaves the API.
 * `text` fields are people-typed and always leave inside a provenance envelope; `pii` text is
 * omitted unless the token carries read:pii, and its schema is marked personal data.
 */
export type Field =
  | {
      kind: 'string';
      column: string;
      nullable?: boolean;
      values?: readonly string[];
      format?: 'date' | 'timestamp';
    }
  | { kind: 'int'; column: string; nullable?: boolean }
  | { kind: 'flag'; column: string; nullable?: boolean }
  | { kind: 'text'; column: string; nullable?: boolean; pii?: boolean };

export type Fields = Record<string, Field>;

export interface MapOptions {
  operationId: string;
  /** JSONPath of the record itself, e.g. `$.items[3]`. */
  path: string;
  pii: boolean;
}

/**
 * The worker a served record is about where it does not serve a `workerId` (an approval status:
 * its subject's worker), by the record object the map made: nothing on the record itself (never
 * served, never seen by a client, in process or not), read by the access trail
 * (operations/revelation.ts) so that "who saw this worker" finds the record.
 */
const namedWorkers = new WeakMap<object, string>();

/** The worker `record` (as a RecordType's map made it) is about, where it serves none. */
export const namedWorkerOf = (record: object): string | undefined => namedWorkers.get(record);

export interface RecordType {
  fields: Fields;
  schema: TObject;
  /** Column list for SELECT, in field order. */
  columns: string[];
  map(row: Record<string, unknown>, options: MapOptions): Record<string, unknown>;
}

/** One of a list of strings, as a union of literals (typed: its Static is the union of the values). */
export function literals<const T extends readonly string[]>(values: T) {
  return Type.Union(values.map((value) => Type.Literal(value))) as unknown as TUnion<{
    -readonly [K in keyof T]: TLiteral<T[K]>;
  }>;
}

const DATE = '^\\d{4}-\\d{2}-\\d{2}$';
const TIMESTAMP = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';

function fieldSchema(field: Field): TSchema {
  let schema: TSchema;
  switch (field.kind) {
    case 'string':
      schema = field.values
        ? literals(field.values)
        : field.format
          ? Type.String({ pattern: field.format === 'date' ? DATE : TIMESTAMP })
          : Type.String();
      break;
    case 'int':
      schema = Type.Integer();
      break;
    case 'flag':
      schema = Type.Boolean();
      break;
    case 'text':
      schema = ProvenanceSchema;
      break;
  }
  return field.nullable ? Type.Union([schema, Type.Null()]) : schema;
}

/** Integers may arrive as strings (PostgreSQL BIGINT); the API always sends numbers. */
function toInt(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

export function defineRecord(
  fields: Fields,
  options: {
    /** A column naming the worker the record is about, read but not served (namedWorkerOf). */
    namesWorker?: string;
  } = {},
): RecordType {
  const properties: Record<string, TSchema> = {};
  for (const [name, field] of Object.entries(fields)) {
    const schema = fieldSchema(field);
    properties[name] =
      field.kind === 'text' && field.pii
        ? Type.Optional(Type.With(schema, { [PERSONAL_DATA_MARK]: true }))
        : schema;
  }
  const entries = Object.entries(fields);
  return {
    fields,
    schema: Type.Object(properties, { additionalProperties: false }),
    columns: [
      ...entries.map(([, f]) => f.column),
      ...(options.namesWorker ? [options.namesWorker] : []),
    ],
    map(row, { operationId, path, pii }) {
      const out: Record<string, unknown> = {};
      const worker = options.namesWorker ? row[options.namesWorker] : undefined;
      if (typeof worker === 'string') namedWorkers.set(out, worker);
      for (const [name, field] of entries) {
        const value = row[field.column];
        if (field.kind === 'text' && field.pii && !pii) continue;
        if (value === null || value === undefined) {
          out[name] = null;
          continue;
        }
        switch (field.kind) {
          case 'string':
            out[name] = value;
            break;
          case 'int':
            out[name] = toInt(value);
            break;
          case 'flag':
            out[name] = value === true || value === 1 || value === '1';
            break;
          case 'text':
            out[name] = provenance(String(value), operationId, `${path}.${name}`);
            break;
        }
      }
      return out;
    },
  };
}
