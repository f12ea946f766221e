import type { Principal } from '../auth/principal.js';
import type { Predicate, SelectionOrder } from '../store/store.js';
import {
  SETS_BY_NAME,
  visibleProperties,
  type EntityProperty,
  type EntitySet,
  type Navigation,
} from './entity-model.js';
import type { OrderItem } from './filter-expression.js';
import { filterPredicate, FilterError } from './filter-sql.js';
import {
  badRequest,
  countOption,
  expandOption,
  filterOption,
  integerOption,
  MAX_SKIP,
  orderbyOption,
  selectOption,
  type RawOptions,
} from './query-options.js';

/**
 * A request's query options resolved against the set and the token's model (DESIGN §4.18): the
 * properties it selects, its filter as a predicate, its order made total, its top, skip, count
 * and expansions. Everything that does not fit is 400 before the store is read.
 */

export interface Expansion {
  navigation: Navigation;
  target: EntitySet;
  properties: readonly EntityProperty[];
  /** The nested `$select` as given (the context URL's), or null. */
  select: string[] | null;
}

export interface SetQuery {
  set: EntitySet;
  properties: readonly EntityProperty[];
  /** The `$select` list as resolved (the context URL's), or null for all. */
  select: string[] | null;
  where: Predicate[];
  order: SelectionOrder[];
  orderItems: OrderItem[];
  top: number | null;
  skip: number;
  count: boolean;
  expand: Expansion[];
  /** What a cursor of this query is bound to: the options that decide its rows and shape. */
  binding: unknown[];
}

const UNKNOWN = 'names a property this set does not have';

function selected(
  set: EntitySet,
  pii: boolean,
  text: string | undefined,
  option: string,
): { properties: readonly EntityProperty[]; select: string[] | null } {
  const all = visibleProperties(set, pii);
  if (text === undefined) return { properties: all, select: null };
  const names = selectOption(text);
  if (names === '*') return { properties: all, select: ['*'] };
  const byName = new Map(all.map((p) => [p.name, p]));
  for (const name of names)
    if (!byName.has(name)) throw badRequest(`The ${option} ${UNKNOWN}.`, option);
  // In the set's own order, whatever the order asked.
  return { properties: all.filter((p) => names.includes(p.name)), select: names };
}

/** The order made total: the keys asked, then the set's own order (ending in `id`) to break ties. */
function totalOrder(set: EntitySet, items: OrderItem[], pii: boolean): SelectionOrder[] {
  const visible = new Map(visibleProperties(set, pii).map((p) => [p.name, p]));
  const order: SelectionOrder[] = [];
  for (const item of items) {
    const p = visible.get(item.property);
    if (!p || !p.sortable)
      throw badRequest(`The $orderby ${UNKNOWN}, or one it cannot sort by.`, '$orderby');
    if (order.some((o) => o.column === p.column)) continue;
    order.push({ column: p.column, direction: item.direction, nullable: p.nullable });
  }
  for (const column of set.order)
    if (!order.some((o) => o.column === 'id') && !order.some((o) => o.column === column))
      order.push({ column, direction: 'asc', nullable: false });
  return order;
}

export function resolveSetQuery(
  set: EntitySet,
  principal: Principal,
  options: RawOptions['options'],
): SetQuery {
  const pii = principal.scopes.has('read:pii');
  const { properties, select } = selected(set, pii, options.$select, '$select');
  const where: Predicate[] = [];
  if (options.$filter !== undefined) {
    const expr = filterOption(options.$filter);
    const visible = new Map(visibleProperties(set, pii).map((p) => [p.name, p]));
    try {
      where.push(filterPredicate(expr, (name) => visible.get(name)));
    } catch (error) {
      if (error instanceof FilterError) throw badRequest(error.message, '$filter');
      throw error;
    }
  }
  const orderItems = options.$orderby === undefined ? [] : orderbyOption(options.$orderby);
  const order = totalOrder(set, orderItems, pii);
  const top = options.$top === undefined ? null : integerOption('$top', options.$top);
  const skip = options.$skip === undefined ? 0 : integerOption('$skip', options.$skip);
  if (skip > MAX_SKIP)
    throw badRequest(
      `$skip may be at most ${MAX_SKIP}; follow nextLinks to read further.`,
      '$skip',
    );
  const count = options.$count === undefined ? false : countOption(options.$count);
  const expand = (options.$expand === undefined ? [] : expandOption(options.$expand)).map(
    (item): Expansion => {
      const navigation = set.navigation.find((n) => n.name === item.navigation);
      if (!navigation)
        throw badRequest('The $expand names no navigation property of this set.', '$expand');
      const target = SETS_BY_NAME.get(navigation.target) as EntitySet;
      const nested =
        item.select === null ? undefined : item.select === '*' ? '*' : item.select.join(',');
      const chosen = selected(target, pii, nested, '$expand');
      return { navigation, target, properties: chosen.properties, select: chosen.select };
    },
  );
  const binding = [
    options.$filter ?? null,
    options.$select ?? null,
    options.$orderby ?? null,
    options.$expand ?? null,
    count,
  ];
  return { set, properties, select, where, order, orderItems, top, skip, count, expand, binding };
}

/** The context URL's fragment after the set: `(a,b,Entries(c))`, or nothing. */
export function selectFragment(
  query: Pick<SetQuery, 'select' | 'expand'>,
  version: string,
): string {
  const parts = [...(query.select ?? [])];
  for (const e of query.expand) {
    if (e.select !== null) parts.push(`${e.navigation.name}(${e.select.join(',')})`);
    else if (version === '4.01') parts.push(`${e.navigation.name}()`);
  }
  if (parts.length === 0) return '';
  // An expansion alone: the set's own properties all (4.0's context of an expanded request).
  if (query.select === null && parts.length > 0 && version !== '4.01') parts.unshift('*');
  return `(${parts.join(',')})`;
}
