// A person signing in through the built-in server's pages, over plain HTTP, again and again
// beside an attack: the whole authorization-code flow with an access key, and refreshes.
import { createHash, randomBytes } from 'node:crypto';
import { sleep } from './common.mjs';
import {
  agentOf,
  CALLBACK,
  forwardedFor,
  reasonOf,
  registrationBody,
  request,
  series,
} from './http.mjs';

const SIGN_IN_SCOPE = 'read:workforce offline_access';

/**
 * The person's pace: a sign-in (about ten requests without a credential) and two refreshes every
 * 1.5 s, about 450 requests a minute: under the 600 a minute an address may make without a
 * credential, and 40 authorization requests a minute (300 an hour: fine for the few minutes one
 * server lives). A person signs in far less often; the pace is for enough samples.
 */
export const CYCLE_MS = 1500;
export const REFRESHES_PER_CYCLE = 2;

/** The form a person fills in on the page: the access key on sign-in, "Allow" on consent. */
function answerPage(html, url, key) {
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  if (!action) return null;
  const target = new URL(action.replaceAll('&amp;', '&'), url);
  if (html.includes('name="key"')) return { action: target, fields: { key } };
  if (html.includes('name="decision"')) return { action: target, fields: { decision: 'allow' } };
  return null;
}

/**
 * A client of the built-in server used by a person at `address` (through the trusted proxy): it
 * registers once, then signs the person in with `key` (authorize with PKCE S256 and `resource`,
 * the redirects followed with the cookies kept, the sign-in and consent forms sent, the code
 * exchanged) and refreshes its token, at the pace above, until `stop()`. Counts its requests.
 */
export function person({ port, address, key }) {
  const agent = agentOf(2);
  const base = `http://127.0.0.1:${port}`;
  const signIns = series();
  const refreshes = series();
  const state = {
    requests: 0,
    client: null,
    refreshToken: null,
    running: true,
  };
  const send = (options) => {
    state.requests++;
    return request(agent, port, {
      ...options,
      headers: { ...forwardedFor(address), ...options.headers },
    });
  };
  const form = (fields) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

  // The steps of the sign-in under way and their times: authorize, the sign-in page, the key
  // sent, back to authorize, the consent page, allowed, back to authorize, the code exchanged.
  let steps = [];
  const pageOf = (url) => {
    const [, , kind, uid] = url.pathname.split('/');
    return kind === 'authorize' ? (uid ? 'resume' : 'authorize') : 'page';
  };
  const step = async (name, options) => {
    const res = await send(options);
    steps.push([name, res.ms]);
    return res;
  };
  const signIn = async () => {
    steps = [];
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${base}/oauth/authorize`);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: state.client.client_id,
      redirect_uri: CALLBACK,
      scope: SIGN_IN_SCOPE,
      state: randomBytes(8).toString('hex'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: base,
      prompt: 'consent',
    }))
      url.searchParams.set(name, value);
    const cookies = new Map();
    let next = { url };
    for (let hop = 0; hop < 20; hop++) {
      const posted = next.fields ? form(next.fields) : { headers: {} };
      const res = await step(next.fields ? next.url.pathname.split('/').pop() : pageOf(next.url), {
        ...posted,
        path: next.url.pathname + next.url.search,
        headers: {
          ...posted.headers,
          cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        },
      });
      if (res.status === 0) return { why: `no answer (${res.error})` };
      for (const line of res.headers['set-cookie'] ?? []) {
        const [pair] = line.split(';');
        const at = pair.indexOf('=');
        const name = pair.slice(0, at).trim();
        if (pair.slice(at + 1) === '' || /expires=Thu, 01 Jan 1970/i.test(line))
          cookies.delete(name);
        else cookies.set(name, pair.slice(at + 1));
      }
      const location = res.headers.location;
      if (location) {
        const target = new URL(location, next.url);
        if (target.href.startsWith(CALLBACK)) {
          const code = target.searchParams.get('code');
          if (!code)
            return {
              why: `back without a code: ${target.search.slice(0, 80)}`,
            };
          const tokens = await step('token', {
            path: '/oauth/token',
            ...form({
              grant_type: 'authorization_code',
              code,
              redirect_uri: CALLBACK,
              client_id: state.client.client_id,
              code_verifier: verifier,
            }),
          });
          return tokenAnswer(tokens, 'code exchange');
        }
        next = { url: target };
        continue;
      }
      const reply = res.status === 200 ? answerPage(res.text, next.url, key) : null;
      if (!reply) {
        const title = /<h1>([^<]*)<\/h1>/.exec(res.text)?.[1] ?? reasonOf(res.text);
        return {
          why: `stopped on ${next.url.pathname.split('/')[2]}: ${res.status} (${title})`,
        };
      }
      next = { url: reply.action, fields: reply.fields };
    }
    return { why: 'too many redirects' };
  };
  const tokenAnswer = (res, step) => {
    if (res.status !== 200)
      return {
        why: `${step}: ${res.status || res.error}${res.status >= 500 ? ` ${reasonOf(res.text)}` : ''}`,
      };
    const body = JSON.parse(res.text);
    if (!body.access_token || !body.refresh_token) return { why: `${step}: no tokens` };
    state.refreshToken = body.refresh_token;
    return { ok: true };
  };
  const refresh = async () => {
    const res = await send({
      path: '/oauth/token',
      ...form({
        grant_type: 'refresh_token',
        refresh_token: state.refreshToken,
        client_id: state.client.client_id,
      }),
    });
    return tokenAnswer(res, 'refresh');
  };
  const timed = async (into, what) => {
    const at = Date.now();
    const started = performance.now();
    const outcome = await what();
    into.add(at, performance.now() - started, Boolean(outcome.ok), outcome.why, outcome.steps);
    return outcome;
  };

  const loop = (async () => {
    while (state.running && !state.client) {
      const res = await send({
        method: 'POST',
        path: '/oauth/register',
        headers: { 'content-type': 'application/json' },
        body: registrationBody('of the person'),
      });
      if (res.status === 201) state.client = JSON.parse(res.text);
      else await sleep(1000);
    }
    while (state.running) {
      const cycleStart = Date.now();
      const signedIn = await timed(signIns, async () => ({ ...(await signIn()), steps }));
      for (let r = 0; r < REFRESHES_PER_CYCLE && signedIn.ok && state.running; r++) {
        await sleep((CYCLE_MS / (REFRESHES_PER_CYCLE + 1)) * (r + 1) - (Date.now() - cycleStart));
        await timed(refreshes, refresh);
      }
      await sleep(CYCLE_MS - (Date.now() - cycleStart));
    }
  })();
  return {
    signIns,
    refreshes,
    state,
    async stop() {
      state.running = false;
      await loop;
      agent.destroy();
    },
  };
}
