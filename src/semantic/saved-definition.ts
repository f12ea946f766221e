/**
 * The one check of a saved query's stored definition (DESIGN §4.9), used where one is written
 * (`vms-read saved-query create`, `vms-read import`) and again where one is run (run_saved_query,
 * for rows written by other means). Pure.
 */
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../records/json-depth.js';
import { CURRENCY_CODE, isPlainId, PLAIN_ID_SHAPE } from '../records/plain-values.js';
import {
  definitionIsCoherent,
  SavedDefinitionSchema,
  type SavedDefinition,
} from './query-schema.js';
import { isDate } from './validate.js';
import { DIMENSIONS, type DimensionValues } from './views.js';
import { schemaCheck } from '../schema-check.js';

const hasSavedDefinitionShape = schemaCheck(SavedDefinitionSchema);

export const SAVED_DEFINITION_SHAPE =
  '{"query": {...}, "period"?: {...}} as run_semantic_query accepts';

export type SavedDefinitionCheck =
  { ok: true; definition: SavedDefinition } | { ok: false; problem: string };

/** What a filter value of a dimension must be, in words, when `value` is not that; else null. */
function expected(values: DimensionValues, value: string): string | null {
  if (values === 'text') return null;
  if (values === 'date') return isDate(value) ? null : 'a date YYYY-MM-DD';
  if (values === 'id') return isPlainId(value) ? null : PLAIN_ID_SHAPE;
  if (values === 'currency')
    return CURRENCY_CODE.test(value) ? null : 'a three-letter currency code in capitals';
  return values.includes(value) ? null : `one of ${values.join(', ')}`;
}

/**
 * `raw` (JSON text, or the parsed value) as a definition run_semantic_query would accept, whose
 * filter values on non-text dimensions are listed values, ids, currency codes or dates: they come
 * back plain in `semanticQuery`, so a saved definition must not be able to carry prose there.
 * Filters on people-typed dimensions (supplier, org unit, ...) and unknown dimensions are left to
 * the run, which refuses the latter. A problem names the place, never quotes the value.
 */
export function checkSavedDefinition(raw: unknown): SavedDefinitionCheck {
  let definition: unknown = raw;
  if (typeof raw === 'string') {
    try {
      definition = JSON.parse(raw);
    } catch {
      definition = undefined;
    }
  }
  if (nestsDeeperThan(definition, MAX_JSON_DEPTH))
    return { ok: false, problem: `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` };
  if (!hasSavedDefinitionShape(definition) || !definitionIsCoherent(definition))
    return { ok: false, problem: `must be ${SAVED_DEFINITION_SHAPE}` };
  const filters = definition.query.filters ?? [];
  for (const [i, filter] of filters.entries()) {
    const dimension = DIMENSIONS.get(filter.dimension);
    if (!dimension) continue;
    for (const [j, value] of filter.values.entries()) {
      const wanted = expected(dimension.values, String(value));
      if (wanted !== null)
        return {
          ok: false,
          problem: `holds query.filters[${i}].values[${j}], which must be ${wanted} (dimension ${filter.dimension})`,
        };
    }
  }
  return { ok: true, definition };
}
