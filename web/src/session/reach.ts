import { ROUTES, type OperationName } from 'vms-read-client';

/**
 * What the signed-in token may call (DESIGN §4.17: the page never calls an operation its token's
 * scopes refuse). The server says the token's role and scopes on every answer to it
 * (`x-token-role`, `x-token-scopes`); the page's first call is one any token may make
 * (list_changes), so both are known before any other. The contract says what each operation
 * needs (ROUTES: its scope, and whether it is for staff tokens only).
 */
export interface TokenReach {
  /** staff, worker or billing_entity; null until the server has said. */
  role: string | null;
  scopes: ReadonlySet<string>;
}

export const unknownReach = (): TokenReach => ({ role: null, scopes: new Set() });

/** Reads what an answer says of its token into `reach`; answers without it change nothing. */
export function learnReach(reach: TokenReach, response: Response): void {
  const role = response.headers.get('x-token-role');
  if (role === null) return;
  reach.role = role;
  reach.scopes = new Set((response.headers.get('x-token-scopes') ?? '').split(' ').filter(Boolean));
}

/**
 * Why the server would refuse this token the operation (403 `insufficient_scope` before
 * `forbidden`, as the API checks them), or null when it may call it. Before the server has said
 * anything (the first call) nothing is refused here.
 */
export function refusalOf(reach: TokenReach, name: OperationName): string | null {
  if (reach.role === null) return null;
  const route = ROUTES[name] as { scope: string | null; staffOnly: boolean };
  if (route.scope !== null && !reach.scopes.has(route.scope)) return 'insufficient_scope';
  if (route.staffOnly && reach.role !== 'staff') return 'forbidden';
  return null;
}

export const mayCall = (reach: TokenReach, name: OperationName) => refusalOf(reach, name) === null;

/** The operation a request of the client is for, by its method and path. */
const BY_ROUTE = new Map(
  Object.entries(ROUTES).map(([name, route]) => [
    `${route.method.toUpperCase()} ${route.path}`,
    name as OperationName,
  ]),
);

export function operationOf(method: string, url: string): OperationName | undefined {
  return BY_ROUTE.get(`${method.toUpperCase()} ${new URL(url, location.origin).pathname}`);
}
