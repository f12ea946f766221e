import type { Table } from '../table.js';

/** A row as the store's primitives give it. */
type Row = Record<string, unknown>;

/**
 * Webhook subscriptions (DESIGN §4.14): each pushes what `list_changes` shows one access key
 * (`token_id`), of the given item types or all, from the data version current when it was made.
 * `state` is `active`, `disabled` (by an operator, or a 410 from the receiver) or `failing`
 * (retried for days without a 2xx). The secret is kept as given to the operator: the server signs
 * with it.
 */
export const WEBHOOK_SUBSCRIPTIONS_TABLE: Table = {
  name: 'webhook_subscriptions',
  columns: {
    id: 'text',
    workspace_id: 'text!',
    token_id: 'text!',
    url: 'text!',
    types: 'text',
    secret: 'text!',
    state: 'text!',
    from_version: 'bigint!',
    created_at: 'text!',
    updated_at: 'text!',
  },
  primaryKey: ['id'],
  indexes: { webhook_subscriptions_token: { columns: ['token_id'] } },
};

export type WebhookState = 'active' | 'disabled' | 'failing';

export interface WebhookSubscription {
  id: string;
  workspaceId: string;
  tokenId: string;
  url: string;
  /** The item types pushed, or null for every type the token reads. */
  types: string[] | null;
  secret: string;
  state: WebhookState;
  /** Changes after this data version are pushed. */
  fromVersion: number;
  createdAt: string;
  updatedAt: string;
}

/** What the webhook commands and the delivery read and write. */
export interface WebhookRecords {
  insertWebhook(subscription: WebhookSubscription): Promise<void>;
  /** Every subscription, oldest first. */
  listWebhooks(): Promise<WebhookSubscription[]>;
  findWebhook(id: string): Promise<WebhookSubscription | null>;
  /** False when no such subscription. */
  setWebhookState(id: string, state: WebhookState, at: string): Promise<boolean>;
  /** False when no such subscription. */
  deleteWebhook(id: string): Promise<boolean>;
}

export interface WebhookSql {
  all(sql: string, params: readonly unknown[]): Promise<Row[]>;
  run(sql: string, params: readonly unknown[]): Promise<number>;
}

const toSubscription = (row: Row): WebhookSubscription => ({
  id: String(row.id),
  workspaceId: String(row.workspace_id),
  tokenId: String(row.token_id),
  url: String(row.url),
  types: row.types === null ? null : (JSON.parse(String(row.types)) as string[]),
  secret: String(row.secret),
  state: String(row.state) as WebhookState,
  fromVersion: Number(row.from_version),
  createdAt: String(row.created_at),
  updatedAt: String(row.updated_at),
});

/** The WebhookRecords part, written once for both stores. */
export function webhookRecords(sql: WebhookSql): WebhookRecords {
  return {
    async insertWebhook(s) {
      await sql.run(
        `INSERT INTO webhook_subscriptions (id, workspace_id, token_id, url, types, secret, state, from_version, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          s.id,
          s.workspaceId,
          s.tokenId,
          s.url,
          s.types === null ? null : JSON.stringify(s.types),
          s.secret,
          s.state,
          s.fromVersion,
          s.createdAt,
          s.updatedAt,
        ],
      );
    },
    async listWebhooks() {
      return (await sql.all('SELECT * FROM webhook_subscriptions ORDER BY created_at, id', [])).map(
        toSubscription,
      );
    },
    async findWebhook(id) {
      const [row] = await sql.all('SELECT * FROM webhook_subscriptions WHERE id = ?', [id]);
      return row ? toSubscription(row) : null;
    },
    async setWebhookState(id, state, at) {
      return (
        (await sql.run('UPDATE webhook_subscriptions SET state = ?, updated_at = ? WHERE id = ?', [
          state,
          at,
          id,
        ])) > 0
      );
    },
    async deleteWebhook(id) {
      return (await sql.run('DELETE FROM webhook_subscriptions WHERE id = ?', [id])) > 0;
    },
  };
}
