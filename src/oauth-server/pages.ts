import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCOPE_WORDS, OFFERED_SCOPES } from './scope-words.js';

/**
 * The built-in authorization server's pages (sign-in, consent, errors), rendered on the server.
 * Every value goes in escaped; text an app chose (its name) is shown as third-party text, marked
 * and isolated (<bdi>), never as the page's own words. No script; one style sheet of our own.
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

export const PAGES_CSS_PATH = '/oauth/pages.css';

/** No script, no frames, nothing from elsewhere. (No form-action: Chrome applies it to the
 * redirect a form's answer makes, and the consent form's ends at the app's redirect URI.) */
export const PAGES_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The sign-out page's script: it presses "Sign out" itself (the person asked on the page). */
export const SIGN_OUT_SCRIPT_PATH = '/oauth/sign-out.js';
export const SIGN_OUT_SCRIPT = `document.getElementById('sign-out')?.click();\n`;
/** The sign-out page may run that one script of our own, and nothing else. */
export const SIGN_OUT_CSP = `${PAGES_CSP}; script-src 'self'`;

/**
 * The pages' style sheet: dist/web/assets/server-pages.css, built from web/server-pages.css on the
 * page's own web/styles/base.css (one set of colours, buttons, fields and cards for every screen).
 * Null in a checkout that ran tsc alone: the pages work unstyled.
 */
export function pagesCss(): string | null {
  const file = fileURLToPath(new URL('../../web/assets/server-pages.css', import.meta.url));
  return existsSync(file) ? readFileSync(file, 'utf8') : null;
}

/** The product's name, never broken at its hyphen. */
const PRODUCT = '<span class="product">vms-read</span>';

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · vms-read</title>
<link rel="icon" type="image/svg+xml" href="/favicon.ico">
<link rel="stylesheet" href="${PAGES_CSS_PATH}">
</head>
<body><main class="card">
${body}
</main></body>
</html>
`;
}

/** An app's own name, as third-party text: cut to 80 characters, isolated, marked as such. */
function appName(name: string | undefined, clientId: string): string {
  const text = name && name.trim() !== '' ? name : clientId;
  const shown = [...text].length > 80 ? `${[...text].slice(0, 79).join('')}…` : text;
  return `<q class="third-party" title="A name the app chose for itself"><bdi>${escapeHtml(shown)}</bdi></q>`;
}

export interface DemoAccount {
  /** What the button says (staff, worker, billing entity). */
  label: string;
  /** What the form sends as `demo`. */
  name: string;
}

export function signInPage(options: {
  action: string;
  appName?: string;
  clientId: string;
  error?: string;
  demoAccounts?: readonly DemoAccount[];
}): string {
  const demo =
    options.demoAccounts && options.demoAccounts.length > 0
      ? `<section class="demo">
<p>Or sign in as one of the demo's accounts:</p>
<div class="actions">
${options.demoAccounts
  .map(
    (account) => `<form method="post" action="${escapeHtml(options.action)}">
<input type="hidden" name="demo" value="${escapeHtml(account.name)}">
<button type="submit" class="secondary">${escapeHtml(account.label)}</button>
</form>`,
  )
  .join('\n')}
</div>
</section>`
      : '';
  return page(
    'Sign in',
    `<h1>Sign in to ${PRODUCT}</h1>
<p>${appName(options.appName, options.clientId)} asks to read this program's data for you.
Sign in with your access key to continue.</p>
${options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : ''}
<form method="post" action="${escapeHtml(options.action)}">
<label for="key">Access key</label>
<input id="key" name="key" type="password" autocomplete="off" spellcheck="false" required>
<div class="actions"><button type="submit">Sign in</button></div>
</form>
<p class="note">An access key starts with <code>vmsr_</code>; your administrator makes one with
<code>vms-read token create</code>.</p>
${demo}`,
  );
}

export function consentPage(options: {
  action: string;
  appName?: string;
  clientId: string;
  redirectHost: string;
  scopes: readonly string[];
  withheld: readonly string[];
  who: string;
}): string {
  const items = OFFERED_SCOPES.filter((scope) => options.scopes.includes(scope))
    .map((scope) => `<li>${escapeHtml(SCOPE_WORDS[scope])} <code>${escapeHtml(scope)}</code></li>`)
    .join('\n');
  const withheld =
    options.withheld.length > 0
      ? `<p class="note">It also asked for ${options.withheld
          .map((s) => `<code>${escapeHtml(s)}</code>`)
          .join(', ')}, which your access key does not hold: it will not get ${
          options.withheld.length === 1 ? 'it' : 'them'
        }.</p>`
      : '';
  return page(
    'Allow access',
    `<h1>Allow ${appName(options.appName, options.clientId)} to read ${PRODUCT}?</h1>
<p>You are signed in as ${escapeHtml(options.who)}. If you allow it, the app may:</p>
<ul class="scopes">
${items || '<li>Nothing beyond knowing you signed in.</li>'}
</ul>
${withheld}
<p class="note">It will send you back to <code>${escapeHtml(options.redirectHost)}</code>.
It can only read: vms-read changes nothing.</p>
<form method="post" action="${escapeHtml(options.action)}">
<div class="actions">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);
}

/**
 * The page a Sign out passes through (oidc-provider's `logoutSource`): its confirmation form, sent
 * at once by the script (the person already chose Sign out on the page), or by the button when
 * scripts are off. `form` is the library's own (its action and a one-time xsrf value).
 */
export function signOutPage(form: string): string {
  const button =
    '<button type="submit" id="sign-out" name="logout" value="yes">Sign out</button></form>';
  return page(
    'Signing out',
    `<h1>Signing out of ${PRODUCT}</h1>
<p>This ends your sign-in in this browser: the next sign-in asks for an access key again.</p>
${form.replace('</form>', button)}
<script src="${SIGN_OUT_SCRIPT_PATH}"></script>`,
  );
}

/** Where a Sign out ends when no page asked to be sent back to. */
export function signedOutPage(): string {
  return page(
    'Signed out',
    `<h1>You are signed out</h1>
<p>Your sign-in to vms-read in this browser has ended. Apps you allowed to stay connected keep
their access until you revoke it or your access key is revoked.</p>
<p><a href="/app">Sign in again</a> on the vms-read page.</p>`,
  );
}
