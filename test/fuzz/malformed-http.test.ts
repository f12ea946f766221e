/**
 * DESIGN §4.1: the answers to malformed HTTP (a bad request line 400, a header block over Node's
 * 16 KiB 431) carry the error body and an x-request-id like every other answer. Node's parser
 * refuses these before any route runs, so only a real socket can send them.
 */
import { after, before, describe, it } from 'node:test';
import { connect } from 'node:net';
import assert from 'node:assert/strict';
import { assertErrorAnswer } from '../support/assertions.js';
import { DIALECTS, startHarness, type Answer, type Harness } from '../support/harness.js';

/** Writes raw bytes and reads the answer until the server closes the connection. */
function exchange(port: number, request: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.setTimeout(5_000, () =>
      socket.destroy(new Error(`no answer to ${JSON.stringify(request.slice(0, 60))}`)),
    );
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [
          l.slice(0, l.indexOf(':')).toLowerCase(),
          l.slice(l.indexOf(':') + 1).trim(),
        ]),
      );
      const raw = rest.join('\r\n\r\n');
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // not JSON: the assertion shows the text
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, raw });
    });
    socket.write(request, 'latin1');
  });
}

const HOST = 'Host: 127.0.0.1\r\n';
const MANY_HEADERS = Array.from({ length: 300 }, (_, i) => `X-H${i}: ${'b'.repeat(60)}\r\n`).join(
  '',
);

/** What Node's parser refuses, and the status DESIGN §4.1 gives it. */
const MALFORMED: [string, number, string][] = [
  ['a request line of one word', 400, 'GARBAGE\r\n\r\n'],
  ['a method alone', 400, 'GET\r\n\r\n'],
  ['a word after the version', 400, `GET /healthz HTTP/1.1 extra\r\n${HOST}\r\n`],
  ['an unknown protocol', 400, `GET /healthz HTTX/1.1\r\n${HOST}\r\n`],
  ['a method with a character no token has', 400, `G@T /healthz HTTP/1.1\r\n${HOST}\r\n`],
  ['NUL in the target', 400, `GET /heal\u0000thz HTTP/1.1\r\n${HOST}\r\n`],
  ['a header line without a colon', 400, `GET /healthz HTTP/1.1\r\n${HOST}Bad Header\r\n\r\n`],
  [
    'one header of 17,000 characters',
    431,
    `GET /healthz HTTP/1.1\r\n${HOST}X-Big: ${'a'.repeat(17_000)}\r\n\r\n`,
  ],
  [
    '300 headers of 70 characters',
    431,
    `GET /api/v1/workers HTTP/1.1\r\n${HOST}${MANY_HEADERS}\r\n`,
  ],
];

for (const dialect of DIALECTS)
  describe(`malformed HTTP is answered with the error body and an x-request-id (${dialect})`, () => {
    let h: Harness;
    let port: number;
    before(async () => {
      h = await startHarness({ dialect });
      port = Number(new URL(await h.app.listen({ port: 0, host: '127.0.0.1' })).port);
    });
    after(() => h.close());

    for (const [what, status, request] of MALFORMED)
      it(`answers ${status} for ${what}`, async () => {
        const answer = await exchange(port, request);
        assert.equal(answer.status, status, answer.raw);
        assertErrorAnswer(answer);
      });
  });
