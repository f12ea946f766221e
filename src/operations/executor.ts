import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { PrincipalCache } from '../auth/principal-cache.js';
import type { Principal } from '../auth/principal.js';
import type { Quota } from '../auth/quota.js';
import { ApiError } from '../errors.js';
import type { CursorCodec } from '../paging/cursor.js';
import type { CatalogCache } from '../semantic/catalog-cache.js';
import type { Store } from '../store/store.js';
import type { AnyOperation } from './operation.js';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export interface ExecutorDeps {
  store: Store;
  cursors: CursorCodec;
  quota: Quota;
  now: () => Date;
  catalogs: CatalogCache;
  reportTimeoutMs: number;
}

function validatorFactory(coerceTypes: boolean) {
  // removeAdditional stays off: an unknown member is a strictness error, never silently dropped.
  const ajv = addFormats(
    new Ajv({
      coerceTypes,
      removeAdditional: false,
      useDefaults: false,
      strict: false,
      allErrors: false,
    }),
  );
  const cache = new WeakMap<AnyOperation, ValidateFunction>();
  return (operation: AnyOperation) => {
    let validate = cache.get(operation);
    if (!validate) {
      validate = ajv.compile(operation.input);
      cache.set(operation, validate);
    }
    return validate;
  };
}

/**
 * The one path to the data, shared by HTTP and MCP, in DESIGN §4.1's order:
 * authentication (401) → quota (429) → strictness (404) → scope and role (403) → operation.
 */
export class Executor {
  private readonly queryValidator = validatorFactory(true);
  private readonly jsonValidator = validatorFactory(false);
  private readonly principals = new PrincipalCache();

  constructor(readonly deps: ExecutorDeps) {}

  authenticate(authorization: string | undefined): Promise<Principal> {
    return this.principals.resolve(this.deps.store, authorization, this.deps.now());
  }

  /** Counts one request against the token's quota; throws 429 when it is spent. */
  admit(principal: Principal): void {
    const wait = this.deps.quota.take(principal.tokenId, this.deps.now().getTime());
    if (wait > 0) throw new ApiError('rate_limited', { 'retry-after': String(wait) });
  }

  /**
   * Validates and runs an operation for an authenticated, admitted principal.
   * `fromQueryString` coerces string values (HTTP query parameters); JSON input is taken as typed.
   */
  async run(
    operation: AnyOperation,
    principal: Principal,
    input: unknown,
    fromQueryString: boolean,
  ): Promise<unknown> {
    const validate = (fromQueryString ? this.queryValidator : this.jsonValidator)(operation);
    if (!validate(input) || (operation.refine && !operation.refine(input)))
      throw new ApiError('not_found');
    if (!principal.scopes.has(operation.scope)) {
      throw new ApiError('insufficient_scope', {
        'www-authenticate': `Bearer error="insufficient_scope", scope="${operation.scope}"`,
      });
    }
    if (operation.staffOnly && principal.role !== 'staff') throw new ApiError('forbidden');
    const { workspace } = principal;
    const { store, cursors, now, catalogs, reportTimeoutMs } = this.deps;
    return operation.run(
      { store, principal, workspace, cursors, now, catalogs, reportTimeoutMs },
      input,
    );
  }

  /** Authenticate, admit and run in one call: what a transport without hooks (MCP) uses. */
  async call(
    operation: AnyOperation,
    authorization: string | undefined,
    input: unknown,
  ): Promise<unknown> {
    const principal = await this.authenticate(authorization);
    this.admit(principal);
    return this.run(operation, principal, input, false);
  }
}
