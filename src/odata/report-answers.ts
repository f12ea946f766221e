import type { Principal } from '../auth/principal.js';
import { ApiError } from '../errors.js';
import { insufficientScope, type Executor } from '../operations/executor.js';
import { annotation, entityWriter } from './json-writer.js';
import {
  badRequest,
  countOption,
  integerOption,
  MAX_SKIP,
  notOffered,
  ODataError,
  selectOption,
  type RawOptions,
} from './query-options.js';
import { METRICS_SET, reportRows, SavedQueryRefused, type ReportSet } from './report-sets.js';

/**
 * A report set's page (Metrics, a saved query's rows): at most 1,000 rows, read whole and written
 * in one answer, with `$select`, `$top`, `$skip` and `$count`. Their `$metadata` marks every
 * property neither filterable nor sortable; a `$filter` or `$orderby` is 501, not ignored.
 */

/** Whether a set's name is a report set's, and what a token needs to read it (403 otherwise). */
export function checkReportAccess(name: string, principal: Principal): void {
  const scope = name === METRICS_SET ? 'read:program' : 'read:financial';
  if (!principal.scopes.has(scope)) throw insufficientScope(principal, scope);
  if (principal.role !== 'staff') throw new ApiError('forbidden');
}

export const isReportSetName = (name: string) =>
  name === METRICS_SET || name.startsWith('SavedQuery_');

export interface ReportPage {
  body: string;
  input: Record<string, unknown>;
}

export async function reportPage(
  executor: Executor,
  principal: Principal,
  set: ReportSet,
  options: RawOptions['options'],
  base: string,
  receivedAt: number,
): Promise<ReportPage> {
  for (const name of ['$filter', '$orderby', '$expand', '$skiptoken'] as const)
    if (options[name] !== undefined)
      throw notOffered(
        `${name} is not offered on report sets: they are read whole (at most 1,000 rows); filter them in the tool, or save a narrower query.`,
      );
  const input: Record<string, unknown> = {};
  let properties = set.properties;
  let select: string[] | null = null;
  if (options.$select !== undefined) {
    const names = selectOption(options.$select);
    if (names !== '*') {
      if (names.some((n) => !set.properties.some((p) => p.name === n)))
        throw badRequest('The $select names a property this set does not have.', '$select');
      properties = set.properties.filter((p) => names.includes(p.name));
      select = names;
      input.$select = names;
    }
  }
  const top = options.$top === undefined ? null : integerOption('$top', options.$top);
  const skip = options.$skip === undefined ? 0 : integerOption('$skip', options.$skip);
  if (skip > MAX_SKIP) throw badRequest(`$skip may be at most ${MAX_SKIP}.`, '$skip');
  const count = options.$count === undefined ? false : countOption(options.$count);
  if (top !== null) input.$top = top;
  if (skip > 0) input.$skip = skip;
  if (options.$count !== undefined) input.$count = count;
  let rows: Record<string, unknown>[];
  try {
    rows = await reportRows(executor, principal, set, receivedAt);
  } catch (error) {
    if (error instanceof SavedQueryRefused)
      throw new ODataError(
        'bad_request',
        'This saved query no longer runs (run_saved_query says why).',
      );
    throw error;
  }
  const page = rows.slice(skip, top === null ? undefined : skip + top);
  const write = entityWriter(properties);
  const context = `${base}$metadata#${set.name}${select ? `(${select.join(',')})` : ''}`;
  const body = `{${annotation('@odata.context', context)}${annotation('@odata.count', count ? rows.length : undefined)}"value":[${page.map(write).join(',')}]}`;
  return { body, input };
}
