import {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  setWebhookState,
  webhookDeliveries,
} from '../admin/webhooks.js';
import { DB_FLAG, integerOf, openDb, required, requiredId, TOKEN_FLAG, tokenOf } from './args.js';
import { defineCommand } from './command.js';
import { SUMMARIES } from './summaries.js';

/** The text output's header rows: what each tab-separated column is (--json has the names). */
const LIST_HEADER = ['id', 'state', 'workspace', 'url'];
const DELIVERIES_HEADER = ['at', 'outcome', 'status', 'answer_bytes', 'ms', 'message_id', 'error'];

/** The webhook commands (DESIGN §4.14; admin/webhooks.ts). */
export const webhookCreateCommand = defineCommand({
  name: 'webhook create',
  synopsis: '--db D --token T --url URL [--type TYPE]…',
  summary: SUMMARIES['webhook create'],
  description:
    'Makes a subscription that pushes to URL what list_changes shows access key T (its\n' +
    'role, scopes and visibility; revoking the key disables it), of the --type item\n' +
    'types given or of all, for the changes after the data version current now. Prints\n' +
    'JSON {id, secret}: the secret (whsec_…) verifies the signatures, as the Standard\n' +
    'Webhooks libraries do; it is shown once here. The URL must be https and resolve to\n' +
    'public addresses (VMS_READ_WEBHOOK_ALLOW_INSECURE=1 allows http and private ones);\n' +
    'a refused URL or an unknown token exits 2 with one line.',
  flags: {
    db: DB_FLAG,
    token: TOKEN_FLAG,
    url: { type: 'string', value: 'URL', help: 'where to POST the changes (https)' },
    type: {
      type: 'string',
      value: 'TYPE',
      multiple: true,
      help: 'an item type to push (again for more): supplier, worker, assignment, …',
    },
  },
  async run({ values }, config) {
    const url = required(values.url, '--url');
    const token = tokenOf(values.token, config);
    const store = await openDb(values.db, config);
    try {
      const created = await createWebhook(
        store,
        { token, url, types: values.type ?? [], now: new Date() },
        { allowInsecure: config.webhookAllowInsecure },
      );
      process.stdout.write(`${JSON.stringify(created)}\n`);
    } finally {
      await store.close();
    }
  },
});

export const webhookListCommand = defineCommand({
  name: 'webhook list',
  synopsis: '--db D [--json]',
  summary: SUMMARIES['webhook list'],
  description:
    'Lists the subscriptions: with --json a JSON array of {id, workspace, url, types,\n' +
    'state, fromVersion, createdAt} (state active, disabled or failing; a subscription\n' +
    'whose token was revoked or expired is disabled); without, one tab-separated line\n' +
    'each: id, state, workspace, url. Secrets are never shown again.',
  flags: { db: DB_FLAG, json: { type: 'boolean', help: 'print a JSON array' } },
  async run({ values }, config) {
    const store = await openDb(values.db, config);
    try {
      const webhooks = await listWebhooks(store, new Date());
      if (values.json) process.stdout.write(`${JSON.stringify(webhooks)}\n`);
      else {
        process.stdout.write(`${LIST_HEADER.join('\t')}\n`);
        for (const w of webhooks)
          process.stdout.write(`${w.id}\t${w.state}\t${w.workspace}\t${w.url}\n`);
      }
    } finally {
      await store.close();
    }
  },
});

const ID_FLAG = { type: 'string', value: 'ID', help: 'the subscription id' } as const;

/** `webhook enable|disable|delete --id`: one subscription, by id; an unknown id exits 2. */
function byId(action: 'enable' | 'disable' | 'delete') {
  const summary = SUMMARIES[`webhook ${action}`];
  return defineCommand({
    name: `webhook ${action}`,
    synopsis: '--db D --id ID',
    summary,
    description: `${summary[0].toUpperCase()}${summary.slice(1)}; prints "${action}d". An unknown id exits 2.`,
    flags: { db: DB_FLAG, id: ID_FLAG },
    async run({ values }, config) {
      const id = requiredId(values.id, '--id');
      const store = await openDb(values.db, config);
      try {
        const now = new Date();
        if (action === 'delete') await deleteWebhook(store, id);
        else await setWebhookState(store, id, action === 'enable' ? 'active' : 'disabled', now);
        process.stdout.write(`${action}d\n`);
      } finally {
        await store.close();
      }
    },
  });
}

export const webhookEnableCommand = byId('enable');
export const webhookDisableCommand = byId('disable');
export const webhookDeleteCommand = byId('delete');

export const webhookDeliveriesCommand = defineCommand({
  name: 'webhook deliveries',
  synopsis: '--db D --id ID [--limit N] [--json]',
  summary: SUMMARIES['webhook deliveries'],
  description:
    'Shows the most recent attempts to deliver to subscription ID (at most N, default 20;\n' +
    'the newest 100 are kept): with --json a JSON array of {at, messageId, attempt,\n' +
    'dataVersion, items, status, answerBytes, error, ms, outcome}; without, one\n' +
    'tab-separated line each: at, outcome, status, answer bytes (both - when there was\n' +
    'no answer), ms, messageId, error (why there was no answer). outcome is delivered\n' +
    '(a 2xx), retry, failing (gave up after 3 days) or disabled (a 410). What a receiver\n' +
    'said is never kept, only its size (read to 4 KiB). An unknown id exits 2.',
  flags: {
    db: DB_FLAG,
    id: ID_FLAG,
    limit: { type: 'string', value: 'N', help: 'how many attempts (default 20, at most 100)' },
    json: { type: 'boolean', help: 'print a JSON array' },
  },
  async run({ values }, config) {
    const id = requiredId(values.id, '--id');
    const limit = integerOf(values.limit, '--limit', 20, 1, 100);
    const store = await openDb(values.db, config);
    try {
      const attempts = await webhookDeliveries(store, id, limit);
      if (values.json) process.stdout.write(`${JSON.stringify(attempts)}\n`);
      else {
        process.stdout.write(`${DELIVERIES_HEADER.join('\t')}\n`);
        for (const a of attempts)
          process.stdout.write(
            `${a.at}\t${a.outcome}\t${a.status ?? '-'}\t${a.answerBytes ?? '-'}\t${a.ms}\t${a.messageId}\t${a.error ?? ''}\n`,
          );
      }
    } finally {
      await store.close();
    }
  },
});
