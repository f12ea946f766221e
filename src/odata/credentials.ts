/**
 * The three ways an OData client gives its key (DESIGN §4.18), as the one `Authorization` value
 * the executor authenticates: `Bearer` as it is (keys and OAuth tokens); `Basic` with the key as
 * password, the user name ignored (Excel, Tableau); and `api_key` in the URL (Power BI's "Web API
 * key"), which only keys minted with `token create --in-url` may use (checked once the key is
 * known). Two ways at once is a malformed credential: 401, as two Authorization headers are.
 */
export interface FeedCredential {
  /** What the executor authenticates; '' for a malformed one that was presented. */
  authorization: string | undefined;
  /** The key came in the URL. */
  inUrl: boolean;
}

/**
 * Whether a request to the feed gives a key in its URL: it then carries a credential, bounded by
 * its quota and, when wrong, by the failed authentications of its address (DESIGN §4.16), not by
 * the bound on requests without one (Power BI's service refreshes from a few shared addresses).
 */
export function carriesUrlKey(url: string): boolean {
  return url.startsWith('/odata/') && /[?&]api_key=/.test(url);
}

export function credentialOf(
  header: string | undefined,
  apiKey: string | undefined,
): FeedCredential {
  if (apiKey !== undefined)
    return {
      authorization: header === undefined && apiKey !== '' ? `Bearer ${apiKey}` : '',
      inUrl: true,
    };
  if (header === undefined) return { authorization: undefined, inUrl: false };
  const basic = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header);
  if (!basic) return { authorization: header, inUrl: false };
  const pair = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  const password = colon < 0 ? '' : pair.slice(colon + 1);
  return { authorization: password === '' ? '' : `Bearer ${password}`, inUrl: false };
}
