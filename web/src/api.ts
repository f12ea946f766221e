import { createVmsReadClient, type VmsReadClient } from 'vms-read-client';

/**
 * The signed-in token: pasted by the person, kept in sessionStorage (gone when the tab closes,
 * never sent anywhere but this server's API as the bearer header), and the typed client over it.
 */
const KEY = 'vms-read-token';

export const tokenOf = () => sessionStorage.getItem(KEY);
export const signIn = (token: string) => sessionStorage.setItem(KEY, token.trim());
export const signOut = () => sessionStorage.removeItem(KEY);

export function clientOf(token: string): VmsReadClient {
  return createVmsReadClient({ baseUrl: location.origin, token, maxRetries: 1 });
}

export type { VmsReadClient };
