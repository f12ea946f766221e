// The HTTP client of the attacks, on agents of its own (so that the attacker's connections are
// never the victim's): one request timed, the latencies of a kind of request, a registration.
import http from 'node:http';
import { percentile, round } from './common.mjs';

/** Where the clients say they send the person back to: nothing listens there, nor need it. */
export const CALLBACK = 'http://127.0.0.1:1/callback';

/**
 * One request; resolves (never rejects) with the status (0 when there was no answer, `error`
 * saying why), the headers, the body as text (or only its size, `discard`) and the time taken.
 */
export function request(
  agent,
  port,
  { method = 'GET', path, headers = {}, body, timeoutMs = 30_000, discard = false, onSocket },
) {
  return new Promise((resolvePromise) => {
    const started = performance.now();
    let done = false;
    const finish = (result) => {
      if (done) return;
      done = true;
      resolvePromise({ ms: performance.now() - started, ...result });
    };
    const payload = body === undefined ? undefined : Buffer.from(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: agent ?? false,
        headers: {
          ...headers,
          ...(payload ? { 'content-length': String(payload.length) } : {}),
        },
      },
      (res) => {
        const chunks = [];
        let bytes = 0;
        res.on('data', (chunk) => {
          bytes += chunk.length;
          if (!discard) chunks.push(chunk);
        });
        res.on('end', () =>
          finish({
            status: res.statusCode,
            headers: res.headers,
            text: discard ? '' : Buffer.concat(chunks).toString('utf8'),
            bytes,
          }),
        );
        res.on('error', (error) => finish({ status: 0, error: error.code ?? error.message }));
      },
    );
    if (onSocket) req.on('socket', onSocket);
    req.setTimeout(timeoutMs, () =>
      req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })),
    );
    req.on('error', (error) => finish({ status: 0, error: error.code ?? error.message }));
    req.end(payload);
  });
}

export const agentOf = (maxSockets) => new http.Agent({ keepAlive: true, maxSockets });
export const forwardedFor = (address) => (address ? { 'x-forwarded-for': address } : {});

/** Latencies of one kind of request: when each started, how long it took, whether it worked. */
export function series() {
  const samples = [];
  return {
    samples,
    add(at, ms, ok, why, steps) {
      samples.push({ at, ms, ok, why, steps });
    },
    /** Figures of the samples that started within [from, to] (all of them by default). */
    summary(from = -Infinity, to = Infinity) {
      const within = samples.filter((s) => s.at >= from && s.at <= to);
      const ms = within.filter((s) => s.ok).map((s) => s.ms);
      const failures = {};
      for (const s of within) if (!s.ok) failures[s.why] = (failures[s.why] ?? 0) + 1;
      return {
        n: within.length,
        failed: within.length - ms.length,
        ...(Object.keys(failures).length ? { failures } : {}),
        p50Ms: round(percentile(ms, 50)),
        p99Ms: round(percentile(ms, 99)),
        maxMs: ms.length ? round(Math.max(...ms)) : null,
        // For a request made of steps (a sign-in): the slowest three, step by step (ms).
        ...(within.some((s) => s.steps)
          ? {
              slowest: [...within]
                .sort((a, b) => b.ms - a.ms)
                .slice(0, 3)
                .map((s) => ({
                  ms: round(s.ms),
                  steps: s.steps.map(([step, stepMs]) => `${step} ${round(stepMs)}`).join(', '),
                })),
            }
          : {}),
      };
    },
  };
}

export const registrationBody = (n) =>
  JSON.stringify({
    client_name: `An app ${n}`,
    redirect_uris: [CALLBACK],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  });

export function register(agent, port, address, n) {
  return request(agent, port, {
    method: 'POST',
    path: '/oauth/register',
    headers: { 'content-type': 'application/json', ...forwardedFor(address) },
    body: registrationBody(n),
  });
}

/** What a refusal said, its numbers (a wait in seconds) blanked so that refusals add up. */
export function reasonOf(text = '') {
  let what = text.slice(0, 160);
  try {
    const body = JSON.parse(text);
    what =
      body.error_description ?? body.error?.message ?? body.message ?? JSON.stringify(body.error);
  } catch {
    // not JSON
  }
  return String(what).replace(/\d+/g, 'N').slice(0, 160);
}
