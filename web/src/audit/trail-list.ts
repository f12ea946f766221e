import { ROUTES } from 'vms-read-client';
import { h, isProvenance, thirdParty, type Provenance } from '../dom.js';
import {
  plainId,
  recordLink,
  words,
  workerLink,
  type ApiRecord,
} from '../records/record-fields.js';
import type { RecordList } from '../records/record-lists.js';
import { TRAIL_ADDRESS } from '../session/trail-access.js';

/** An event's caller as list_audit_events serves it (DESIGN §4.17). */
type Caller =
  | { kind: 'access_key'; keyId: string }
  | {
      kind: 'oauth';
      issuer: string;
      subject: string;
      clientId: string | null;
      clientName?: Provenance;
    }
  | null;

interface Revealed {
  type: string;
  id: string;
  worker?: string;
  personalData?: true;
}

type Child = Node | string;

/** Records an event's cell lists before the rest fold under "N more". */
const SHOWN_RECORDS = 5;

const ROLE_WORDS: Record<string, string> = {
  staff: 'Staff',
  worker: 'Worker',
  billing_entity: 'Billing entity',
};

/** The address of the trail with one filter: an app, a worker. */
const trailOf = (param: string, value: string) =>
  `${TRAIL_ADDRESS}?${new URLSearchParams({ [param]: value }).toString()}`;

/** When, to the second, in UTC as the API gives it; the exact value in `datetime`. */
function answeredAt(event: ApiRecord): Child {
  const at = String(event.at);
  return h('time', { datetime: at }, `${at.slice(0, 19).replace('T', ' ')} UTC`);
}

/**
 * Who called, in words: the role, then an access key's id, or the person (the access key) signed
 * in through this server, or an organisation's subject with its issuer; a worker's or a billing
 * entity's token says whose it is. No credential accepted (a 401): said so.
 */
function callerWords(event: ApiRecord): Child {
  const caller = event.caller as Caller;
  if (!caller)
    return h(
      'span',
      { class: 'no-caller' },
      event.countedBy === 'rest'
        ? 'refusals past the minute’s ceiling, from any address'
        : 'no credential accepted',
    );
  const role = ROLE_WORDS[String(event.role)] ?? words(event.role);
  const whose: Child[] = [];
  if (typeof event.worker === 'string') whose.push(' of ', workerLink(event.worker));
  if (typeof event.supplier === 'string') whose.push(' of supplier ', plainId(event.supplier));
  if (caller.kind === 'access_key')
    return h('span', {}, `${role} access key `, plainId(caller.keyId), ...whose);
  const own = caller.issuer.startsWith(location.origin);
  return own
    ? h('span', {}, `${role}, signed in with key `, plainId(caller.subject), ...whose)
    : h('span', {}, `${role} `, plainId(caller.subject), ` of ${hostOf(caller.issuer)}`, ...whose);
}

const hostOf = (issuer: string) => {
  try {
    return new URL(issuer).host;
  } catch {
    return issuer;
  }
};

/**
 * Through which app: an OAuth client's registered name (the client's own text) and its id, which
 * opens the trail of that app; an access key is used without one. The user agent under it.
 */
function appWords(event: ApiRecord): Child {
  const caller = event.caller as Caller;
  const agent = isProvenance(event.userAgent)
    ? h('span', { class: 'user-agent meta' }, thirdParty(event.userAgent))
    : null;
  const app =
    caller?.kind === 'oauth' && caller.clientId
      ? [
          caller.clientName ? thirdParty(caller.clientName) : null,
          ' ',
          h(
            'a',
            {
              href: trailOf('client', caller.clientId),
              class: 'record-id',
              'data-client': caller.clientId,
            },
            caller.clientId,
          ),
        ]
      : [caller ? 'no app (an access key)' : '—'];
  return h(
    'span',
    { class: 'app' },
    ...app.filter((a) => a !== null),
    agent ? h('br') : '',
    agent ?? '',
  );
}

/** The operation in words, and whether it came through MCP. */
const operationWords = (event: ApiRecord): Child =>
  `${event.operation ? words(event.operation) : 'none'}${event.transport === 'mcp' ? ' (MCP)' : ''}`;

/** How a counted refusal was grouped (DESIGN §4.17), in words. */
const COUNTED_BY: Record<string, string> = {
  address: 'from this address',
  caller: 'of this caller',
  rest: 'past the ceiling',
};

/**
 * The HTTP status and the refusal's code; a counted refusal (one event for a minute's refusals
 * of an address or caller) with its count, "401 ×37", and what the count is in its title.
 */
function answerWords(event: ApiRecord): Child {
  const text = `${String(event.status)}${typeof event.code === 'string' ? ` ${words(event.code)}` : ''}`;
  if (typeof event.count !== 'number') return text;
  const by = COUNTED_BY[String(event.countedBy)] ?? '';
  return h(
    'span',
    { class: 'counted', title: `${event.count} refusals in this minute ${by}`.trim() },
    `${text} ×${event.count}`,
  );
}

/** A revealed record as a link to its page where it has one; personal data marked. */
function revealedLink(record: Revealed): HTMLElement {
  const link =
    record.type === 'worker'
      ? workerLink(record.id)
      : record.type === 'timesheet' || record.type === 'invoice'
        ? recordLink(record.type, record.id)
        : plainId(record.id);
  return h(
    'li',
    { 'data-type': record.type },
    `${words(record.type)} `,
    link,
    record.personalData ? h('span', { class: 'personal-data' }, 'personal data') : null,
  );
}

/** What the answer carried: a report's rows, or its records as links (the rest folded). */
function revealedCell(event: ApiRecord): Child {
  const report = event.report as { rows: number } | null;
  if (report) return `a report of ${report.rows} row${report.rows === 1 ? '' : 's'}`;
  const revealed = event.revealed as Revealed[];
  if (revealed.length === 0) return 'nothing';
  const first = revealed.slice(0, SHOWN_RECORDS).map(revealedLink);
  const rest = revealed.slice(SHOWN_RECORDS);
  return h(
    'div',
    { class: 'revealed' },
    h('ul', {}, ...first),
    rest.length > 0
      ? h(
          'details',
          {},
          h('summary', {}, `${rest.length} more`),
          h('ul', {}, ...rest.map(revealedLink)),
        )
      : null,
  );
}

/** How many records carried a name or work email. */
function personalCell(event: ApiRecord): Child {
  const count = (event.revealed as Revealed[]).filter((r) => r.personalData).length;
  return count === 0 ? 'no' : `yes, ${count} record${count === 1 ? '' : 's'}`;
}

/** A day of the address as the API's instant: `since` its start, `until` the next day's start. */
function instantOf(day: string, next: boolean): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return day;
  const start = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(start)) return day;
  return new Date(start + (next ? 86_400_000 : 0)).toISOString();
}

/**
 * The access trail as a list of the page (DESIGN §4.17): list_audit_events, newest first, its
 * filters (a worker by name or id, an app, an operation, the days answered), each event's
 * caller and app in words and the records it revealed as links.
 */
export const ACCESS_TRAIL: RecordList = {
  key: 'access-trail',
  address: TRAIL_ADDRESS,
  unordered: true,
  operation: 'list_audit_events',
  title: 'Access trail',
  unit: ['event', 'events'],
  idKey: 'requestId',
  holds: 'Who read what: each answered request, its caller and app, the records it carried.',
  back: { href: '#/', label: 'Home' },
  // By pairs (Column.below), so that every column fits 1280 px; cards on a phone
  // (access-trail.css). The CSV keeps a column for each.
  columns: [
    {
      heading: 'Answered',
      value: answeredAt,
      below: { heading: 'Address', value: (event) => plainId(event.address) },
    },
    { heading: 'Caller', value: callerWords, below: { heading: 'App', value: appWords } },
    {
      heading: 'Operation',
      value: operationWords,
      below: { heading: 'Answer', value: answerWords },
    },
    { heading: 'Records revealed', value: revealedCell },
    { heading: 'Personal data', value: personalCell },
  ],
  tableClass: 'trail-table',
  // "Who saw this worker": the trail of one worker, its name beside its id where readable.
  headingOf: (filters) => (filters.worker ? ['Who saw worker ', workerLink(filters.worker)] : null),
  filters: [
    { kind: 'worker', param: 'worker' },
    { kind: 'text', param: 'client', label: 'App (client id)' },
    {
      kind: 'choice',
      param: 'operation',
      label: 'Operation',
      values: Object.keys(ROUTES),
    },
    { kind: 'period', params: ['since', 'until'], label: 'Answered' },
  ],
  inputOf: (filters) => {
    const input: Record<string, string> = { ...filters };
    if (filters.since) input.since = instantOf(filters.since, false);
    if (filters.until) input.until = instantOf(filters.until, true);
    return input;
  },
};
