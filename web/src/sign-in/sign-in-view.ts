import { h } from '../dom.js';
import { errorView } from '../error-view.js';
import { beginSignIn, type SignInSettings } from './oauth-session.js';

/**
 * The sign-in card. With an authorization server (the server's own, or the organisation's), its
 * first way in is "Sign in", which goes there; an access key can still be typed in ("Use an access
 * key"). Without one, the access key form alone, as before. `useKey` keeps a typed key.
 */
export function signInView(
  settings: SignInSettings,
  useKey: (key: string) => void,
  problem?: HTMLElement,
): HTMLElement {
  const input = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
  }) as HTMLInputElement;
  const keyForm = h(
    'form',
    { class: 'sign-in' },
    settings.issuer ? undefined : h('h1', {}, 'Sign in'),
    h('label', { for: 'token' }, 'Access key'),
    input,
    h('button', { type: 'submit' }, settings.issuer ? 'Sign in with this key' : 'Sign in'),
    h(
      'p',
      { class: 'hint' },
      'Staff keys see reports and every record; a worker or billing-entity key sees its own records. The key stays in this tab (sessionStorage) and goes only to this server.',
    ),
    settings.issuer ? undefined : problem,
  );
  keyForm.addEventListener('submit', (event) => {
    event.preventDefault();
    useKey(input.value);
  });
  if (!settings.issuer) {
    keyForm.classList.add('card');
    return keyForm;
  }
  const status = h('div', { role: 'status' });
  const go = h('button', { type: 'button', id: 'sign-in-oauth', class: 'primary' }, 'Sign in');
  go.addEventListener('click', () => {
    (go as HTMLButtonElement).disabled = true;
    beginSignIn(settings).catch((error: unknown) => {
      (go as HTMLButtonElement).disabled = false;
      status.replaceChildren(errorView(error));
    });
  });
  const demo = settings.demoAccounts ?? [];
  return h(
    'section',
    { class: 'sign-in card', 'aria-labelledby': 'sign-in-title' },
    h('h1', { id: 'sign-in-title' }, 'Welcome to vms-read'),
    h(
      'p',
      {},
      "Workers, timesheets, invoices and reports of your program, as far as your account may see them. Signing in takes you to your organisation's sign-in page, or this server's own, and back here.",
    ),
    go,
    demo.length > 0
      ? h(
          'p',
          { class: 'demo-accounts' },
          `This is a demo: its sign-in page offers its accounts one click each, no key to type (${demo.join('; ')}).`,
        )
      : undefined,
    h('p', { class: 'hint' }, 'You stay signed in in this tab only, until you sign out.'),
    problem,
    status,
    h('details', { class: 'use-key' }, h('summary', {}, 'Use an access key'), keyForm),
  );
}
