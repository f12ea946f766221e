import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { AddressWindows } from '../address-bounds.js';
import { isScope } from '../auth/scopes.js';
import { hashToken, liveKey, TOKEN_PATTERN } from '../auth/tokens.js';
import type { TokenReads, TokenRow } from '../store/store.js';
import { consentPage, errorPage, PAGES_CSP, signInPage, type DemoAccount } from './pages.js';

/** A demo account the sign-in page offers (`vms-read demo`): its button and its access key. */
export interface DemoSignIn extends DemoAccount {
  token: string;
}

export interface InteractionDeps {
  provider: () => Promise<Provider>;
  tokens: Pick<TokenReads, 'findTokenById' | 'findTokenByHash'>;
  demoAccounts?: readonly DemoSignIn[];
  now?: () => number;
  /** Wrong credentials per address, shared with the API: a wrong key counts there too. */
  failures?: AddressWindows;
  clientAddress: (raw: IncomingMessage) => string;
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

const PAGE_HEADERS = {
  'content-security-policy': PAGES_CSP,
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/**
 * Where the app sends the person back, as the consent page says it: a web address's origin; an
 * app's own scheme (RFC 8252, `cursor://…`, whose origin is "null") as its scheme and authority.
 */
export function whereBack(redirectUri: string): string {
  const url = URL.parse(redirectUri);
  if (!url) return redirectUri;
  if (url.origin !== 'null') return url.origin;
  return url.host ? `${url.protocol}//${url.host}` : url.protocol;
}

/** The signed-in key as the consent page says it: its role in its workspace. */
function who(key: TokenRow): string {
  if (key.role === 'worker') return `worker ${key.workerId} of workspace ${key.workspaceId}`;
  if (key.role === 'billing_entity')
    return `the billing entity of supplier ${key.supplierId} in workspace ${key.workspaceId}`;
  return `staff of workspace ${key.workspaceId}`;
}

/**
 * The sign-in and consent pages of the built-in server (oidc-provider's "interactions"): a person
 * signs in by entering an access key (or, under `vms-read demo`, by choosing a demo account),
 * then allows or denies the app. The grant holds the scopes asked for that the key holds (and
 * `offline_access` when asked); any other is rejected, so the app's tokens never carry it.
 * A wrong key counts as a failed authentication of the client's address (DESIGN §4.16): past the
 * limit a wrong key gets 429, a correct one is still accepted. The answer to a wrong key is the
 * same whether it is malformed, unknown, revoked or expired.
 */
export function mountInteractions(app: FastifyInstance, deps: InteractionDeps): void {
  const now = deps.now ?? Date.now;
  const html = (reply: FastifyReply, status: number, body: string) =>
    reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(body);

  async function detailsOf(request: FastifyRequest, reply: FastifyReply) {
    try {
      return await (await deps.provider()).interactionDetails(request.raw, reply.raw);
    } catch {
      html(
        reply,
        400,
        errorPage(
          'This sign-in has expired',
          'Go back to the app and connect again: sign-in pages work for ten minutes, in the browser that opened them.',
        ),
      );
      return null;
    }
  }

  async function appOf(details: Details) {
    const client = await (await deps.provider()).Client.find(String(details.params.client_id));
    return {
      appName: typeof client?.clientName === 'string' ? client.clientName : undefined,
      clientId: String(details.params.client_id),
      redirectHost: whereBack(String(details.params.redirect_uri)),
    };
  }

  const demoAccounts = deps.demoAccounts?.map(({ name, label }) => ({ name, label }));

  app.get<{ Params: { uid: string } }>('/oauth/interaction/:uid', async (request, reply) => {
    const details = await detailsOf(request, reply);
    if (!details) return reply;
    const action = `/oauth/interaction/${details.uid}`;
    if (details.prompt.name === 'login')
      return html(
        reply,
        200,
        signInPage({ action: `${action}/sign-in`, ...(await appOf(details)), demoAccounts }),
      );
    const key = await liveKey(deps.tokens, String(details.session?.accountId), now());
    if (!key) return html(reply, 400, errorPage('Signed out', 'Your access key no longer works.'));
    const asked = String(details.params.scope ?? '')
      .split(' ')
      .filter(Boolean);
    const granted = asked.filter((s) => s === 'offline_access' || key.scopes.includes(s));
    return html(
      reply,
      200,
      consentPage({
        action: `${action}/consent`,
        ...(await appOf(details)),
        scopes: granted,
        withheld: asked.filter((s) => isScope(s) && !granted.includes(s)),
        who: who(key),
      }),
    );
  });

  app.post<{ Params: { uid: string }; Body: Record<string, string> }>(
    '/oauth/interaction/:uid/sign-in',
    async (request, reply) => {
      const details = await detailsOf(request, reply);
      if (!details) return reply;
      const retry = async (status: number, error: string) =>
        html(
          reply,
          status,
          signInPage({
            action: request.url,
            ...(await appOf(details)),
            demoAccounts,
            error,
          }),
        );
      const demo = deps.demoAccounts?.find((account) => account.name === request.body?.demo);
      const entered = demo?.token ?? String(request.body?.key ?? '').trim();
      const row = TOKEN_PATTERN.test(entered)
        ? await deps.tokens.findTokenByHash(hashToken(entered))
        : null;
      const key = row ? await liveKey(deps.tokens, row.id, now()) : null;
      if (!key) {
        const address = deps.clientAddress(request.raw);
        const wait = (await deps.failures?.waitFor(address)) ?? 0;
        if (wait > 0) {
          reply.header('retry-after', String(wait));
          return retry(429, 'Too many wrong access keys from here. Wait a minute, then try again.');
        }
        await deps.failures?.count(address);
        return retry(401, 'That access key is not valid (or was revoked, or has expired).');
      }
      reply.hijack();
      await (
        await deps.provider()
      ).interactionFinished(
        request.raw,
        reply.raw,
        { login: { accountId: key.id } },
        { mergeWithLastSubmission: false },
      );
    },
  );

  app.post<{ Params: { uid: string }; Body: Record<string, string> }>(
    '/oauth/interaction/:uid/consent',
    async (request, reply) => {
      const details = await detailsOf(request, reply);
      if (!details) return reply;
      const provider = await deps.provider();
      if (details.prompt.name !== 'consent' || request.body?.decision !== 'allow') {
        reply.hijack();
        await provider.interactionFinished(
          request.raw,
          reply.raw,
          { error: 'access_denied', error_description: 'The person did not allow access.' },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      const key = await liveKey(deps.tokens, String(details.session?.accountId), now());
      if (!key)
        return html(reply, 400, errorPage('Signed out', 'Your access key no longer works.'));
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({
            accountId: key.id,
            clientId: String(details.params.client_id),
          });
      if (!grant) return html(reply, 400, errorPage('Sign-in could not go on', 'No grant.'));
      const missing = details.prompt.details as {
        missingOIDCScope?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
      for (const scope of missing.missingOIDCScope ?? []) {
        if (scope === 'offline_access' || scope === 'openid') grant.addOIDCScope(scope);
        else grant.rejectOIDCScope(scope);
      }
      for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
        const held = scopes.filter((s) => key.scopes.includes(s));
        const refused = scopes.filter((s) => !key.scopes.includes(s));
        if (held.length > 0) grant.addResourceScope(resource, held.join(' '));
        if (refused.length > 0) grant.rejectResourceScope(resource, refused.join(' '));
      }
      const grantId = await grant.save();
      reply.hijack();
      await provider.interactionFinished(
        request.raw,
        reply.raw,
        { consent: details.grantId ? {} : { grantId } },
        { mergeWithLastSubmission: true },
      );
    },
  );
}
