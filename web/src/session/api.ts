import { createVmsReadClient, type VmsReadClient } from 'vms-read-client';
import { learnReach, operationOf, refusalOf, unknownReach, type TokenReach } from './reach.js';

/**
 * The signed-in access key: typed by the person, kept in sessionStorage (gone when the tab
 * closes, never sent anywhere but this server's API as the bearer header), and the typed client
 * over it or over an OAuth session's access token (sign-in/oauth-session.ts).
 */
const KEY = 'vms-read-token';

export const tokenOf = () => sessionStorage.getItem(KEY);
export const signIn = (token: string) => sessionStorage.setItem(KEY, token.trim());
export const signOut = () => sessionStorage.removeItem(KEY);

/**
 * The client of a token. What each answer says of the token goes into `reach`; a call the token
 * would be refused (reach.ts) is answered here as the server would answer it, 403 with its code,
 * without a request: nothing reaches the server, the browser's console or the access trail.
 * Any answer of 401 (a token revoked or expired since sign-in) calls `onEnded` once: the page
 * forgets the token and returns to sign-in.
 */
export function clientOf(
  token: string | (() => Promise<string>),
  onEnded: () => void,
  reach: TokenReach = unknownReach(),
): VmsReadClient {
  let ended = false;
  const watched: typeof fetch = async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const name = operationOf(request.method, request.url);
    const refused = name && refusalOf(reach, name);
    if (refused) return refusal(refused, name);
    const response = await fetch(input, init);
    learnReach(reach, response);
    if (response.status === 401 && !ended) {
      ended = true;
      queueMicrotask(onEnded);
    }
    return response;
  };
  return createVmsReadClient({ baseUrl: location.origin, token, maxRetries: 1, fetch: watched });
}

/** The server's 403, said by the page: the token's role and scopes are known not to allow it. */
function refusal(code: string, operation: string): Response {
  const message =
    code === 'forbidden'
      ? `${operation} is for staff tokens; this token's role may not call it (not sent).`
      : `${operation} needs a scope this token does not hold (not sent).`;
  return new Response(
    JSON.stringify({ error: { code, message }, request_id: 'not sent: refused by the page' }),
    { status: 403, headers: { 'content-type': 'application/json' } },
  );
}

export type { VmsReadClient };
