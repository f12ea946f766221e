import { signIn, signOut, tokenOf } from './api.js';
import { h, replace } from './dom.js';
import { explorerView } from './explorer.js';
import { openSession, type Session } from './session.js';
import { dashboardView, errorView, homeView, savedQueryView } from './views.js';

/**
 * The web page: sign in by pasting a token (kept in sessionStorage), then dashboards, saved
 * queries and the explorer, routed by the URL's hash (#/, #/dashboard/<id>, #/query/<id>,
 * #/explorer) so the server serves one page.
 */
const main = document.getElementById('main') as HTMLElement;
const signOutButton = document.getElementById('sign-out') as HTMLButtonElement;
let session: Session | null = null;

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
    { class: 'sign-in' },
    h('h1', {}, 'Sign in'),
    h('label', { for: 'token' }, 'API token (a staff token: reports are for staff)'),
    input,
    h('button', { type: 'submit' }, 'Sign in'),
    h(
      'p',
      { class: 'hint' },
      'The token stays in this tab (sessionStorage) and goes only to this server.',
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

async function view(path: string): Promise<HTMLElement> {
  const active = session as Session;
  const [, page, id] = path.split('/');
  if (page === 'dashboard' && id) return dashboardView(active, decodeURIComponent(id));
  if (page === 'query' && id) return savedQueryView(active, decodeURIComponent(id));
  if (page === 'explorer') return explorerView(active);
  return homeView(active);
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
    try {
      session = await openSession(token);
    } catch (error) {
      signOut();
      replace(main, signInView(errorView(error)));
      return;
    }
  }
  signOutButton.hidden = false;
  replace(main, h('p', { class: 'loading' }, 'Loading…'));
  try {
    replace(main, await view(location.hash.replace(/^#/, '') || '/'));
  } catch (error) {
    replace(main, errorView(error));
  }
  main.focus();
}

signOutButton.addEventListener('click', () => {
  signOut();
  session = null;
  void route();
});
window.addEventListener('hashchange', () => void route());
void route();
