import { errors } from 'oidc-provider';

/**
 * What a client's metadata may say (DESIGN §4.16 "Registration"), as oidc-provider's
 * `extraClientMetadata.validator`, which its documentation offers for rules of one's own: it sees
 * the metadata of every client before the library's own checks (registered, read back from the
 * store, or from a client ID metadata document), and may refuse it with `invalid_client_metadata`.
 */

/** A `client_name` longer than this many characters (code points) is refused. */
export const MAX_CLIENT_NAME = 100;

/** The loopback hosts an `http` redirect URI may name (RFC 8252 §7.3, §8.3). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Schemes a redirect URI never takes: they run or read something in the browser itself. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'vbscript:',
  'data:',
  'blob:',
  'file:',
  'about:',
  'ws:',
  'wss:',
  'ftp:',
]);

/** How a redirect URI is sent back to: a web page, a loopback listener, or an app's own scheme. */
export type RedirectKind = 'https' | 'loopback' | 'private-use';

/** The kind of a redirect URI, or why it is refused (a sentence). */
export function redirectKind(uri: string): RedirectKind | { refused: string } {
  const url = URL.parse(uri);
  if (!url) return { refused: 'is not an absolute URI' };
  if (url.username !== '' || url.password !== '')
    return { refused: 'must not carry a user name or password' };
  if (url.protocol === 'https:') return 'https';
  if (url.protocol === 'http:')
    return LOOPBACK_HOSTS.has(url.hostname)
      ? 'loopback'
      : { refused: 'may be http only on a loopback address (127.0.0.1, [::1], localhost)' };
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return { refused: `must not use ${url.protocol}` };
  return 'private-use';
}

const refuse = (description: string) => new errors.InvalidClientMetadata(description);

/**
 * The validator: `client_name` at most MAX_CLIENT_NAME characters; each redirect URI `https`,
 * `http` on a loopback address, or a private-use scheme (RFC 8252 §7.1), never with a user or
 * password. A client that registers a loopback or private-use redirect URI is a native app (RFC
 * 8252), whatever `application_type` it said or the library assumed (`web`): the library accepts
 * those URIs of native apps only. (VS Code registers a loopback and an https URI together.)
 */
export function checkClientMetadata(metadata: Record<string, unknown>): void {
  const name = metadata.client_name;
  if (typeof name === 'string' && [...name].length > MAX_CLIENT_NAME)
    throw refuse(`client_name must be at most ${MAX_CLIENT_NAME} characters`);
  const uris = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris : [];
  const kinds = uris.map((uri: unknown) => {
    const kind = typeof uri === 'string' ? redirectKind(uri) : { refused: 'is not a string' };
    if (typeof kind !== 'string') throw refuse(`each redirect_uri ${kind.refused}`);
    return kind;
  });
  if (kinds.some((kind) => kind !== 'https')) metadata.application_type = 'native';
}
