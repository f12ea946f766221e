import { signIn, signOut, tokenOf } from './session/api.js';
import {
  currentAccessToken,
  endOAuthSession,
  finishSignIn,
  loadSettings,
  signedInWithOAuth,
  SIGNED_OUT_STATE,
  type SignInSettings,
} from './sign-in/oauth-session.js';
import { signInView } from './sign-in/sign-in-view.js';
import { decoded, h, replace } from './dom.js';
import { explorerView } from './explorer/explorer.js';
import { recordsRoute } from './records/routes.js';
import { openSession, type Session } from './session/session.js';
import { followData } from './session/data-follow.js';
import { errorView } from './error-view.js';
import { homeView } from './home.js';
import { dashboardView, savedQueryView } from './dashboards/views.js';
import { trailView } from './audit/trail-view.js';

/**
 * The web page: sign in (at the authorization server, or with an access key; sign-in/), then the
 * home page, dashboards, saved queries, the explorer, the records and the access trail, routed by
 * the URL's hash (#/, #/dashboard/<id>, #/query/<id>, #/explorer, #/records/<list>,
 * #/invoice/<id>, #/access-trail?worker=<id>, …) so the server serves one page.
 */
const main = document.getElementById('main') as HTMLElement;
const signOutButton = document.getElementById('sign-out') as HTMLButtonElement;
const explorerLink = document.getElementById('nav-explorer') as HTMLElement;
let session: Session | null = null;
let opening: Promise<Session> | null = null;
/** The latest navigation: a slower view of an earlier one never replaces it. */
let turn = 0;

/** Said at sign-in after the server stopped accepting the token (revoked or expired). */
const ENDED =
  'Your session has ended: the server no longer accepts this token (revoked or expired). Sign in with a current token.';
/** Whether the last session ended because the server refused its token: said until sign-in. */
let endedUnsaid = false;
/** How this server signs people in; fetched once, as the page loads. */
let settings: SignInSettings = { issuer: null, clientId: null, resource: location.origin };

/** The sign-in card, with `problem` said on it. */
function signInCard(problem?: HTMLElement): HTMLElement {
  return signInView(
    settings,
    (key) => {
      endedUnsaid = false;
      signIn(key);
      void route();
    },
    problem,
  );
}

/** A session whose token the server refused: forget it and say so at sign-in. */
function ended(): void {
  // A 401 while the session opens is sign-in's own refusal, shown there with its message.
  if (!session) return;
  turn++;
  signOut();
  void endOAuthSession();
  session = null;
  signOutButton.hidden = true;
  // Kept until someone signs in: a navigation that follows at once still says why.
  endedUnsaid = true;
  replace(main, signInCard(endedAlert()));
  showFromTop();
}

const endedAlert = () => h('p', { class: 'error', role: 'alert' }, ENDED);

/** Report pages for a token that may not run reports: one plain sentence and the way home. */
function reportsOnly(active: Session, page: () => Promise<HTMLElement>): Promise<HTMLElement> {
  if (active.catalog) return page();
  return Promise.resolve(
    h(
      'div',
      {},
      h('p', { class: 'notice' }, active.noReports ?? ''),
      h('p', {}, h('a', { href: '#/' }, 'Home')),
    ),
  );
}

async function view(path: string): Promise<HTMLElement> {
  const active = session as Session;
  const parts = path.split('/').slice(1);
  const [page, id] = parts;
  if (page === 'dashboard' && id) return reportsOnly(active, () => dashboardView(active, id));
  if (page === 'query' && id) return reportsOnly(active, () => savedQueryView(active, decoded(id)));
  if (page === 'explorer') return reportsOnly(active, () => explorerView(active));
  // The access trail's search follows in the address: #/access-trail?worker=…
  const [trail, query = ''] = (page ?? '').split(/\?(.*)/s, 2);
  if (trail === 'access-trail' && parts.length === 1) return trailView(active, query);
  return (await recordsRoute(active, parts)) ?? homeView(active);
}

/** The bearer token of this tab: a typed access key, or the OAuth session's access token. */
function tokenSource(): string | (() => Promise<string>) | null {
  const key = tokenOf();
  if (key) return key;
  if (!signedInWithOAuth()) return null;
  return async () => {
    const token = await currentAccessToken(settings);
    if (token) return token;
    ended();
    throw new Error(ENDED);
  };
}

async function route(problem?: HTMLElement): Promise<void> {
  const token = tokenSource();
  if (!token) {
    session = null;
    signOutButton.hidden = true;
    replace(main, signInCard(problem ?? (endedUnsaid ? endedAlert() : undefined)));
    return;
  }
  if (!session) {
    // One opening at a time: a second navigation while it runs waits for the same one.
    opening ??= openSession(token, ended).finally(() => (opening = null));
    try {
      session = await opening;
      endedUnsaid = false;
    } catch (error) {
      signOut();
      await endOAuthSession();
      replace(main, signInCard(errorView(error)));
      return;
    }
  }
  const mine = ++turn;
  signOutButton.hidden = false;
  // The explorer is offered only to a token that may run reports.
  explorerLink.hidden = !session.catalog;
  replace(main, h('p', { class: 'loading' }, 'Loading…'));
  try {
    // Names and choices kept from the data as it was are read again if it moved since.
    await followData(session);
    if (turn !== mine) return;
    const shown = await view(location.hash.replace(/^#/, '') || '/');
    if (turn !== mine) return;
    replace(main, shown);
  } catch (error) {
    if (turn !== mine) return;
    replace(main, errorView(error));
  }
  showFromTop();
}

/**
 * A new view starts at the top of the page, its top bar (Sign out) in view: focusing the view
 * for screen readers scrolled the page to the view's own top, past the bar (63 px at 1280, 133
 * at 375 after sign-in, issue 57).
 */
function showFromTop(): void {
  main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

/** Said on the sign-in card after Sign out. */
const signedOut = () => h('p', { class: 'notice', role: 'status' }, 'You are signed out.');

signOutButton.addEventListener('click', () => {
  turn++;
  signOut();
  session = null;
  // The server ends its own sign-in in this browser too, then sends the browser back here.
  void endOAuthSession(true).then((end) => (end ? location.assign(end) : route(signedOut())));
});
window.addEventListener('hashchange', () => void route());

const isLoopback = (host: string) =>
  host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);

/** Loads how this server signs in, ends a sign-in that came back here, then shows the page. */
async function start(): Promise<void> {
  settings = await loadSettings().catch(() => settings);
  // Opened under another loopback name than the server's own (localhost for 127.0.0.1): move
  // there first, where sign-in comes back to and the server's tokens are issued for.
  const own = settings.page ? new URL(settings.page) : null;
  if (
    own &&
    own.origin !== location.origin &&
    isLoopback(location.hostname) &&
    isLoopback(own.hostname)
  ) {
    location.replace(`${own.href}${location.search}${location.hash}`);
    return;
  }
  const here = new URL(location.href);
  if (here.searchParams.get('state') === SIGNED_OUT_STATE && !here.searchParams.has('code')) {
    history.replaceState(null, '', '/app');
    await route(signedOut());
    return;
  }
  try {
    await finishSignIn(settings);
  } catch (error) {
    await route(errorView(error));
    return;
  }
  await route();
}
void start();
