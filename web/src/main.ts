import { signIn, signOut, tokenOf } from './api.js';
import { decoded, h, replace } from './dom.js';
import { explorerView } from './explorer.js';
import { recordsRoute } from './records/routes.js';
import { openSession, type Session } from './session.js';
import { errorView } from './error-view.js';
import { homeView } from './home.js';
import { dashboardView, savedQueryView } from './views.js';

/**
 * The web page: sign in by pasting a token (kept in sessionStorage), then the home page,
 * dashboards, saved queries, the explorer and the records, routed by the URL's hash (#/,
 * #/dashboard/<id>, #/query/<id>, #/explorer, #/records/<list>, #/invoice/<id>, …) so the
 * server serves one page.
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

function signInView(problem?: HTMLElement): HTMLElement {
  const input = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
  }) as HTMLInputElement;
  const form = h(
    'form',
    { class: 'sign-in card' },
    h('h1', {}, 'Sign in'),
    h('label', { for: 'token' }, 'API token'),
    input,
    h('button', { type: 'submit' }, 'Sign in'),
    h(
      'p',
      { class: 'hint' },
      'Staff tokens see reports and every record; a worker or billing-entity token sees its own records. The token stays in this tab (sessionStorage) and goes only to this server.',
    ),
    problem,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    signIn(input.value);
    void route();
  });
  return form;
}

/** A session whose token the server refused: forget it and say so at sign-in. */
function ended(): void {
  // A 401 while the session opens is sign-in's own refusal, shown there with its message.
  if (!session) return;
  turn++;
  signOut();
  session = null;
  signOutButton.hidden = true;
  replace(main, signInView(h('p', { class: 'error', role: 'alert' }, ENDED)));
  main.focus();
}

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
  return (await recordsRoute(active, parts)) ?? homeView(active);
}

async function route(): Promise<void> {
  const token = tokenOf();
  if (!token) {
    session = null;
    signOutButton.hidden = true;
    replace(main, signInView());
    return;
  }
  if (!session) {
    // One opening at a time: a second navigation while it runs waits for the same one.
    opening ??= openSession(token, ended).finally(() => (opening = null));
    try {
      session = await opening;
    } catch (error) {
      signOut();
      replace(main, signInView(errorView(error)));
      return;
    }
  }
  const mine = ++turn;
  signOutButton.hidden = false;
  // The explorer is offered only to a token that may run reports.
  explorerLink.hidden = !session.catalog;
  replace(main, h('p', { class: 'loading' }, 'Loading…'));
  try {
    const shown = await view(location.hash.replace(/^#/, '') || '/');
    if (turn !== mine) return;
    replace(main, shown);
  } catch (error) {
    if (turn !== mine) return;
    replace(main, errorView(error));
  }
  main.focus();
}

signOutButton.addEventListener('click', () => {
  turn++;
  signOut();
  session = null;
  void route();
});
window.addEventListener('hashchange', () => void route());
void route();
