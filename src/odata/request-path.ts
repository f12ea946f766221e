import { ODataError, notOffered } from './query-options.js';

/**
 * The resource path of an OData request (OData 4.01 Part 2 §4), the part after `/odata/v4/`:
 * the service document, `$metadata`, a set, its `$count`, an entity by key (`Workers('x')` or
 * `Workers(id='x')`), and a collection-valued navigation of one (`Timesheets('x')/Entries`) with
 * its `$count`. Anything else that OData defines (`$batch`, a property's own path) is 501; what
 * names nothing is 404.
 */
export type ResourcePath =
  | { kind: 'service' }
  | { kind: 'metadata' }
  | { kind: 'collection'; set: string; count: boolean }
  | { kind: 'entity'; set: string; key: string }
  | { kind: 'navigation'; set: string; key: string; navigation: string; count: boolean };

const notFound = () => new ODataError('not_found', 'No such resource in this service.');

const SET_AND_KEY = /^([A-Za-z_][A-Za-z0-9_]*)\((?:id=)?'((?:[^']|'')*)'\)$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `path` as requested, still percent-encoded; each segment is decoded on its own. */
export function parseResourcePath(path: string): ResourcePath {
  if (path === '') return { kind: 'service' };
  let segments: string[];
  try {
    segments = path.split('/').map((s) => decodeURIComponent(s));
  } catch {
    throw notFound();
  }
  if (segments[segments.length - 1] === '' && segments.length > 1) throw notFound();
  const [first, ...rest] = segments;
  if (first === '$metadata' && rest.length === 0) return { kind: 'metadata' };
  if (first.startsWith('$')) {
    if (['$batch', '$all', '$crossjoin', '$entity', '$root'].includes(first))
      throw notOffered('This OData resource is not offered.');
    throw notFound();
  }
  const keyed = SET_AND_KEY.exec(first);
  if (!keyed) {
    if (!NAME.test(first)) throw notFound();
    if (rest.length === 0) return { kind: 'collection', set: first, count: false };
    if (rest.length === 1 && rest[0] === '$count')
      return { kind: 'collection', set: first, count: true };
    throw notFound();
  }
  const [, set, quoted] = keyed;
  const key = quoted.replace(/''/g, "'");
  if (rest.length === 0) return { kind: 'entity', set, key };
  const [navigation, ...tail] = rest;
  if (!NAME.test(navigation)) throw notFound();
  if (tail.length === 0) return { kind: 'navigation', set, key, navigation, count: false };
  if (tail.length === 1 && tail[0] === '$count')
    return { kind: 'navigation', set, key, navigation, count: true };
  throw notFound();
}
