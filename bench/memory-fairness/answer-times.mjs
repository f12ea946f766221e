// Loaded into the server under test (`node --import`): for each report request, when the client
// sent it (its `x-sent-at` header, ms since the epoch), when the event loop began the turn that
// read it (as src/deadline.ts' turnStart counts it: the first request of a turn stamps it, the
// turn's check phase forgets it), and when its answer was handed over, with its status. On
// SIGUSR2 it writes what it has to ANSWER_TIMES_FILE and starts again. Nothing of the server's
// own is changed: it listens to Node's diagnostics channels.
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';

const epochNow = () => performance.timeOrigin + performance.now();
let turn;
const turnStart = () => {
  if (turn === undefined) {
    turn = epochNow();
    setImmediate(() => (turn = undefined));
  }
  return turn;
};

let answers = [];
subscribe('http.server.request.start', ({ request, response }) => {
  if (!request.url.startsWith('/api/v1/reports/query')) return;
  const answer = { sent: Number(request.headers['x-sent-at']), read: turnStart() };
  response.once('finish', () => {
    answer.answered = epochNow();
    answer.status = response.statusCode;
    answers.push(answer);
  });
});

process.on('SIGUSR2', () => {
  writeFileSync(process.env.ANSWER_TIMES_FILE, JSON.stringify(answers));
  answers = [];
});
