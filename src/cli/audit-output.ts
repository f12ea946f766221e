import type { ListedEvent } from '../admin/audit.js';
import { toOcsf } from '../audit/ocsf.js';

/**
 * Characters that change how a terminal shows what follows, or hide text: C0 and C1 controls
 * (ESC among them), DEL, the bidirectional marks, embeddings, overrides and isolates (U+202E
 * turns a line around), zero-width characters, line and paragraph separators, the byte-order mark
 * and interlinear annotation.
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- the controls are what it finds
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;

/**
 * `text` with every such character written as its escape (`\u202e`): what a client or caller
 * wrote (a user agent, a client's name, an address a proxy passed on) cannot disguise a line of
 * `audit list` (DESIGN §4.17). Inside JSON the escape reads back as the same character.
 */
export function escapeUnsafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** An OAuth caller's app: its id, with the name it registered quoted (the client's own text). */
const appOf = (caller: { clientId: string | null; clientName?: string }) =>
  `${caller.clientId ?? '?'}${caller.clientName === undefined ? '' : ` ${JSON.stringify(caller.clientName)}`}`;

/** One line of what a person reads: when, where, who, what, and what it revealed. */
export function eventLine(event: ListedEvent): string {
  const caller = event.caller
    ? event.caller.kind === 'access_key'
      ? event.caller.keyId
      : `${event.caller.subject} via ${appOf(event.caller)} (${event.caller.issuer})`
    : '-';
  const personal = event.revealed.filter((r) => r.personalData).length;
  const revealed = event.report
    ? `report of ${event.report.rows} rows`
    : event.count !== undefined
      ? `${event.count} refusals counted`
      : `${event.revealed.length} records${personal ? `, ${personal} with personal data` : ''}`;
  return [
    new Date(event.at).toISOString(),
    event.workspace ?? '-',
    `${event.role ?? '-'} ${caller}`,
    `${event.transport} ${event.operation ?? '-'}`,
    `${event.status}${event.code ? ` ${event.code}` : ''}`,
    revealed,
    event.address ?? '-',
  ]
    .map(escapeUnsafe)
    .join('\t');
}

/** An event as the chosen output writes it: a line, a JSON line, or OCSF API Activity. */
export function eventText(event: ListedEvent, format: 'line' | 'json' | 'ocsf'): string {
  if (format === 'line') return eventLine(event);
  return escapeUnsafe(JSON.stringify(format === 'ocsf' ? toOcsf(event) : event));
}

/** Characters of output written at once: a write per event was an eighth of `audit worker`'s time. */
const CHUNK = 256 * 1024;

/**
 * Lines to stdout a chunk at a time. A reader that goes away (`| head -1`: EPIPE) ends the output
 * quietly: `closed` turns true and what follows is dropped, the command exits 0.
 */
export class LineWriter {
  closed = false;
  private chunk: string[] = [];
  private size = 0;

  constructor(private readonly out: NodeJS.WriteStream = process.stdout) {
    out.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      this.closed = true;
    });
  }

  async line(text: string): Promise<void> {
    this.chunk.push(text, '\n');
    this.size += text.length + 1;
    if (this.size >= CHUNK) await this.write();
  }

  async end(): Promise<void> {
    if (this.size > 0) await this.write();
  }

  private async write(): Promise<void> {
    const text = this.chunk.join('');
    this.chunk = [];
    this.size = 0;
    if (this.closed) return;
    if (this.out.write(text)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.out.off('drain', done);
        this.out.off('error', done);
        resolve();
      };
      this.out.once('drain', done);
      this.out.once('error', done);
    });
  }
}
