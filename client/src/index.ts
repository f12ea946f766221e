import createClient from 'openapi-fetch';
import {
  isRefusal,
  VmsReadError,
  VmsReadRefusal,
  type ErrorBody,
  type RefusalData,
} from './errors.js';
import { retryAfterMs, retryingFetch, type RetryOptions } from './retry.js';
import { ROUTES } from './routes.js';
import type { operations, paths } from './schema.js';

export { isRefusal, VmsReadError, VmsReadRefusal, retryAfterMs, ROUTES };
export type { ErrorBody, ErrorCode, RefusalData } from './errors.js';
export type { components, operations, paths } from './schema.js';

/** The 15 operations, by their operationId (the MCP tool names are the same). */
export type OperationName = keyof typeof ROUTES;

type JsonBody<T> = T extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : never;
type Query<T> = T extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type OrEmpty<T> = [T] extends [never] ? Record<string, never> : T;

/** What an operation takes: its query parameters (GET) or its JSON body (POST). */
export type InputOf<K extends OperationName> = [JsonBody<operations[K]>] extends [never]
  ? OrEmpty<Query<operations[K]>>
  : JsonBody<operations[K]>;
/** The `data` of an operation's answer: the success, or one of its refusals. */
export type DataOf<K extends OperationName> =
  operations[K]['responses'][200]['content']['application/json']['data'];
/** The success alone. */
export type AnswerOf<K extends OperationName> = Exclude<DataOf<K>, { status: 'refused' }>;

/** Operations whose answers continue through `nextCursor`: the lists and the report runs. */
export type PagedName = {
  [K in OperationName]: 'nextCursor' extends keyof AnswerOf<K> ? K : never;
}[OperationName];
export type ListName = {
  [K in PagedName]: AnswerOf<K> extends { items: unknown[] } ? K : never;
}[PagedName];
export type ReportName = {
  [K in PagedName]: AnswerOf<K> extends { rows: unknown[] } ? K : never;
}[PagedName];
export type ItemOf<K extends ListName> = AnswerOf<K> extends { items: (infer I)[] } ? I : never;
export type RowOf<K extends ReportName> = AnswerOf<K> extends { rows: (infer R)[] } ? R : never;

export interface VmsReadOptions extends RetryOptions {
  /** Where the server is, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /**
   * The bearer token: an access key (`vms-read token create`) or an OAuth access token, as a
   * string, or a function called before each request that gives the current one (a provider
   * that refreshes an OAuth token before it expires, say). A token refreshed from the same grant
   * keeps its cursors.
   */
  token: string | TokenProvider;
  /** A fetch of your own (a proxy agent, a test double); the global fetch by default. */
  fetch?: typeof fetch;
}

/** Gives the bearer token to send; called before every request, so it may refresh one. */
export type TokenProvider = () => string | Promise<string>;

/** The body of an answer that is not the service's error shape (a proxy's page, say). */
function foreignError(response: Response): ErrorBody {
  return {
    error: {
      code: response.status >= 500 ? 'unavailable' : 'not_found',
      message: response.statusText,
    },
    request_id: response.headers.get('x-request-id') ?? '',
  };
}

function isErrorBody(value: unknown): value is ErrorBody {
  const error = (value as { error?: { code?: unknown } } | null)?.error;
  return typeof error?.code === 'string';
}

/**
 * One item of the change feed: a record added or changed, `{type, id, version, record}`, or a
 * tombstone (`record` null). `change.record === null` narrows to the tombstone and its
 * `removed.reason`.
 */
export type Change = ItemOf<'list_changes'>;
/** A record added or changed, as its own list serves it to this token. */
export type ChangedRecord = Exclude<Change, { record: null }>;
/**
 * A record gone from this token's view, `{type, id, version, record: null, removed: {reason}}`:
 * `deleted` (it was deleted), or `not_visible` (this token could read it and no longer can, such
 * as an assignment moved to another supplier). Either way, remove it from the copy.
 */
export type Tombstone = Extract<Change, { record: null }>;

/**
 * The change feed read from a cursor to its current end: iterate it for every change, then
 * keep `cursor`, where to resume later (it moves as pages are read, and is never null once one
 * was).
 */
export interface ChangeFeed extends AsyncIterable<Change> {
  cursor: string | null;
}

/**
 * A typed client of vms-read: `call` any of the 15 operations by name with its typed input and
 * get its typed `data` (a refusal is data: check `isRefusal`); `pages`, `items` and `rows`
 * follow `nextCursor` to the end, and `changes` follows the change feed to where it stands now.
 * A non-200 answer throws VmsReadError; 429 and 503 are retried after their Retry-After first
 * (see RetryOptions).
 */
export function createVmsReadClient(options: VmsReadOptions) {
  const { token } = options;
  const http = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(typeof token === 'string' ? { headers: { authorization: `Bearer ${token}` } } : {}),
    fetch: retryingFetch(options.fetch ?? globalThis.fetch, options),
  });
  if (typeof token === 'function')
    http.use({
      async onRequest({ request }) {
        request.headers.set('authorization', `Bearer ${await token()}`);
        return request;
      },
    });

  async function call<K extends OperationName>(
    name: K,
    ...[input]: InputOf<K> extends Record<string, never> ? [InputOf<K>?] : [InputOf<K>]
  ): Promise<DataOf<K>> {
    const { method, path } = ROUTES[name];
    const init = method === 'get' ? { params: { query: input ?? {} } } : { body: input };
    // The route table and the generated types agree by construction (both from the document).
    const request = http.request as unknown as (
      method: string,
      path: string,
      init: object,
    ) => Promise<{ data?: { data: DataOf<K> }; error?: unknown; response: Response }>;
    const { data, error, response } = await request(method, path, init);
    if (!response.ok || data === undefined) {
      const seconds = retryAfterMs(response.headers.get('retry-after'));
      throw new VmsReadError(
        response.status,
        isErrorBody(error) ? error : foreignError(response),
        seconds === null ? null : Math.ceil(seconds / 1000),
      );
    }
    return data.data;
  }

  /** Every page of a list or report run, from `input.cursor` (or the start) to the last. */
  async function* pages<K extends PagedName>(
    name: K,
    input: InputOf<K>,
  ): AsyncGenerator<AnswerOf<K>> {
    let page: Record<string, unknown> = { ...(input as object) };
    for (;;) {
      const data = await (call as (n: K, i: unknown) => Promise<DataOf<K>>)(name, page);
      if (isRefusal(data)) throw new VmsReadRefusal(data as unknown as RefusalData);
      yield data as AnswerOf<K>;
      const { nextCursor: next, hasMore } = data as {
        nextCursor?: string | null;
        hasMore?: boolean;
      };
      // The change feed's cursor is never null: hasMore false is its end for now.
      if (!next || hasMore === false) return;
      page = { ...page, cursor: next };
    }
  }

  /** Every item of a list, page after page. */
  async function* items<K extends ListName>(name: K, input: InputOf<K>): AsyncGenerator<ItemOf<K>> {
    for await (const page of pages(name, input))
      yield* (page as unknown as { items: ItemOf<K>[] }).items;
  }

  /** Every row of a report run, page after page. */
  async function* rows<K extends ReportName>(name: K, input: InputOf<K>): AsyncGenerator<RowOf<K>> {
    for await (const page of pages(name, input))
      yield* (page as unknown as { rows: RowOf<K>[] }).rows;
  }

  /**
   * The change feed from `input.cursor` (or the start: a full export) to its current end, every
   * change once per page, in order: records to upsert, tombstones (`record` null) to remove.
   * Save `feed.cursor` when done and pass it next time to get only what changed since. A cursor
   * older than the tombstones the server keeps throws VmsReadRefusal with code `cursor_expired`:
   * clear the copy and read the feed again from the start, without a cursor.
   */
  function changes(input: InputOf<'list_changes'> = {}): ChangeFeed {
    const feed: ChangeFeed = {
      cursor: input.cursor ?? null,
      async *[Symbol.asyncIterator]() {
        for await (const page of pages('list_changes', {
          ...input,
          cursor: feed.cursor ?? undefined,
        })) {
          yield* page.items;
          feed.cursor = page.nextCursor;
        }
      },
    };
    return feed;
  }

  return { call, pages, items, rows, changes, http };
}

export type VmsReadClient = ReturnType<typeof createVmsReadClient>;
