import { createVmsReadClient, type VmsReadClient } from 'vms-read-client';

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
 * The client of a token. Any answer of 401 (a token revoked or expired since sign-in) calls
 * `onEnded` once: the page forgets the token and returns to sign-in.
 */
export function clientOf(
  token: string | (() => Promise<string>),
  onEnded: () => void,
): VmsReadClient {
  let ended = false;
  const watched: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 401 && !ended) {
      ended = true;
      queueMicrotask(onEnded);
    }
    return response;
  };
  return createVmsReadClient({ baseUrl: location.origin, token, maxRetries: 1, fetch: watched });
}

export type { VmsReadClient };
