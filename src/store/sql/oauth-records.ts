import type { Table } from '../table.js';

/** A row as the store's primitives give it. */
type Row = Record<string, unknown>;

/**
 * What the built-in authorization server keeps (src/oauth-server/): oidc-provider's models
 * (sessions, interactions, grants, authorization codes, refresh tokens, registered clients), one
 * row each, its payload as JSON. `expires_at` and `consumed_at` are milliseconds since the epoch;
 * `grant_id` lets a grant be revoked with all its tokens, `uid` finds a session by its fixed id.
 */
export const OAUTH_RECORDS_TABLE: Table = {
  name: 'oauth_records',
  columns: {
    model: 'text',
    id: 'text',
    payload: 'text!',
    grant_id: 'text',
    uid: 'text',
    expires_at: 'bigint',
    consumed_at: 'bigint',
  },
  primaryKey: ['model', 'id'],
  indexes: {
    oauth_records_grant: { columns: ['grant_id'] },
    oauth_records_uid: { columns: ['model', 'uid'] },
    oauth_records_expiry: { columns: ['expires_at'] },
    // The records of one model still to expire, counted from the index alone: the clients nobody
    // has used yet, bounded by VMS_READ_UNUSED_CLIENTS_MAX at every registration.
    oauth_records_model_expiry: { columns: ['model', 'expires_at'] },
  },
};

/** One stored model instance. */
export interface OAuthRecord {
  model: string;
  id: string;
  /** The model's payload as oidc-provider gave it. */
  payload: Record<string, unknown>;
  grantId: string | null;
  uid: string | null;
  /** When it stops being found (ms since the epoch), or null for never. */
  expiresAt: number | null;
  /** When it was consumed (a code exchanged, a refresh token rotated), or null. */
  consumedAt: number | null;
}

/** What the authorization server's storage adapter reads and writes. */
export interface OAuthRecords {
  /** The record when stored and not expired at `now`. */
  findOAuthRecord(model: string, id: string, now: number): Promise<OAuthRecord | null>;
  findOAuthRecordByUid(model: string, uid: string, now: number): Promise<OAuthRecord | null>;
  /** Inserts or replaces a record (consumed_at kept as it was). */
  saveOAuthRecord(record: Omit<OAuthRecord, 'consumedAt'>): Promise<void>;
  consumeOAuthRecord(model: string, id: string, at: number): Promise<void>;
  /** Clears a record's expiry: it is kept until destroyed. */
  keepOAuthRecord(model: string, id: string): Promise<void>;
  destroyOAuthRecord(model: string, id: string): Promise<void>;
  /** Removes every record of a grant (its codes, refresh tokens, the grant itself). */
  revokeOAuthGrant(grantId: string): Promise<void>;
  /**
   * Removes the records whose payload matches `pattern` (DROP_RECORDS_NAMING: an erased worker's
   * name or email); how many.
   */
  dropOAuthRecordsNaming(pattern: string): Promise<number>;
  /** Removes records that expired before `now`; how many. */
  deleteExpiredOAuthRecords(now: number): Promise<number>;
  /**
   * How many records of `model` have an expiry after `now` (a record kept for good has none),
   * counted up to `atMost`: the cost stays within the bound, whatever the table holds.
   */
  countOAuthRecordsExpiring(model: string, now: number, atMost: number): Promise<number>;
  /** When the first record of `model` to expire after `now` expires; null when none will. */
  firstOAuthRecordExpiry(model: string, now: number): Promise<number | null>;
  /**
   * Inserts a record unless `atMost` records of its model already have an expiry after `now`, in
   * one statement, so that registrations at once (on any instance) do not all pass a count made
   * before any of them was written; whether it was inserted.
   */
  addOAuthRecordWithin(
    record: Omit<OAuthRecord, 'consumedAt'>,
    now: number,
    atMost: number,
  ): Promise<boolean>;
}

/** The SQL of the parts above, over a store's primitives (`?` placeholders, one dialect each). */
export interface OAuthSql {
  get(sql: string, params: readonly unknown[]): Promise<Row | null>;
  run(sql: string, params: readonly unknown[]): Promise<number>;
}

/**
 * Removes the records whose payload holds a text (an erased worker's name or email as a JSON
 * string, DESIGN §4.13; the parameter a `LIKE … ESCAPE '\'` pattern): what a client or person
 * typed is kept there as given, a sign-in's `login_hint` or a registered client's `contacts`. A
 * sign-in under way starts again; a client registered so registers again. Runs in the erasure's
 * write transaction.
 */
export const DROP_RECORDS_NAMING = `DELETE FROM oauth_records WHERE payload LIKE ? ESCAPE '\\'`;

/** Saving again keeps `consumed_at`: a consumed code or refresh token stays consumed. */
const UPSERT = `INSERT INTO oauth_records (model, id, payload, grant_id, uid, expires_at, consumed_at)
  VALUES (?, ?, ?, ?, ?, ?, NULL)
  ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
    uid = excluded.uid, expires_at = excluded.expires_at`;

const toRecord = (row: Row | null): OAuthRecord | null =>
  row === null
    ? null
    : {
        model: String(row.model),
        id: String(row.id),
        payload: JSON.parse(String(row.payload)) as Record<string, unknown>,
        grantId: row.grant_id === null ? null : String(row.grant_id),
        uid: row.uid === null ? null : String(row.uid),
        expiresAt: row.expires_at === null ? null : Number(row.expires_at),
        consumedAt: row.consumed_at === null ? null : Number(row.consumed_at),
      };

const UNEXPIRED = '(expires_at IS NULL OR expires_at > ?)';

/** At most `?` records of a model whose expiry is after `?`: a walk of its index, bounded. */
const EXPIRING = `SELECT COUNT(*) AS n FROM (SELECT 1 FROM oauth_records
  WHERE model = ? AND expires_at > ? LIMIT ?) expiring`;

/**
 * UPSERT's insert, made only while fewer than `?` records of the model are still to expire (the
 * expiry cast: PostgreSQL reads a bare parameter of a SELECT list as text).
 */
const ADD_WITHIN = `INSERT INTO oauth_records (model, id, payload, grant_id, uid, expires_at, consumed_at)
  SELECT ?, ?, ?, ?, ?, CAST(? AS BIGINT), NULL WHERE (${EXPIRING}) < ?
  ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
    uid = excluded.uid, expires_at = excluded.expires_at`;

/** The OAuthRecords part, written once for both stores. */
export function oauthRecords(sql: OAuthSql): OAuthRecords {
  return {
    async findOAuthRecord(model, id, now) {
      return toRecord(
        await sql.get(`SELECT * FROM oauth_records WHERE model = ? AND id = ? AND ${UNEXPIRED}`, [
          model,
          id,
          now,
        ]),
      );
    },
    async findOAuthRecordByUid(model, uid, now) {
      return toRecord(
        await sql.get(`SELECT * FROM oauth_records WHERE model = ? AND uid = ? AND ${UNEXPIRED}`, [
          model,
          uid,
          now,
        ]),
      );
    },
    async saveOAuthRecord(record) {
      await sql.run(UPSERT, [
        record.model,
        record.id,
        JSON.stringify(record.payload),
        record.grantId,
        record.uid,
        record.expiresAt,
      ]);
    },
    async consumeOAuthRecord(model, id, at) {
      await sql.run('UPDATE oauth_records SET consumed_at = ? WHERE model = ? AND id = ?', [
        at,
        model,
        id,
      ]);
    },
    async keepOAuthRecord(model, id) {
      await sql.run('UPDATE oauth_records SET expires_at = NULL WHERE model = ? AND id = ?', [
        model,
        id,
      ]);
    },
    async destroyOAuthRecord(model, id) {
      await sql.run('DELETE FROM oauth_records WHERE model = ? AND id = ?', [model, id]);
    },
    async revokeOAuthGrant(grantId) {
      await sql.run('DELETE FROM oauth_records WHERE grant_id = ?', [grantId]);
    },
    async dropOAuthRecordsNaming(pattern) {
      return sql.run(DROP_RECORDS_NAMING, [pattern]);
    },
    async deleteExpiredOAuthRecords(now) {
      return sql.run('DELETE FROM oauth_records WHERE expires_at <= ?', [now]);
    },
    async countOAuthRecordsExpiring(model, now, atMost) {
      return Number((await sql.get(EXPIRING, [model, now, atMost]))?.n ?? 0);
    },
    async firstOAuthRecordExpiry(model, now) {
      const row = await sql.get(
        'SELECT MIN(expires_at) AS first FROM oauth_records WHERE model = ? AND expires_at > ?',
        [model, now],
      );
      return row?.first === null || row?.first === undefined ? null : Number(row.first);
    },
    async addOAuthRecordWithin(record, now, atMost) {
      const added = await sql.run(ADD_WITHIN, [
        record.model,
        record.id,
        JSON.stringify(record.payload),
        record.grantId,
        record.uid,
        record.expiresAt,
        record.model,
        now,
        atMost,
        atMost,
      ]);
      return added > 0;
    },
  };
}
