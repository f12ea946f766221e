import type { Adapter, AdapterConstructor, AdapterPayload } from 'oidc-provider';
import type { OAuthRecords } from '../store/sql/oauth-records.js';

/**
 * oidc-provider's storage adapter over the store's `oauth_records` (both databases), so sessions,
 * grants, codes, refresh tokens and registered clients survive a restart and are shared by every
 * instance of a deployment. Each model gets an adapter of its own (oidc-provider makes one per
 * model name); what it stores is the payload oidc-provider gives, unchanged.
 */
export function recordAdapter(records: OAuthRecords, now: () => number): AdapterConstructor {
  return class RecordAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      await records.saveOAuthRecord({
        model: this.model,
        id,
        payload: payload as Record<string, unknown>,
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        expiresAt: expiresIn ? now() + expiresIn * 1000 : null,
      });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await records.findOAuthRecord(this.model, id, now()));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await records.findOAuthRecordByUid(this.model, uid, now()));
    }

    /** Device codes only, a flow this server does not offer. */
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      await records.consumeOAuthRecord(this.model, id, now());
    }

    async destroy(id: string): Promise<void> {
      await records.destroyOAuthRecord(this.model, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await records.revokeOAuthGrant(grantId);
    }
  };
}

/** The payload as oidc-provider expects it back: `consumed` set once the record was consumed. */
function payloadOf(
  record: Awaited<ReturnType<OAuthRecords['findOAuthRecord']>>,
): AdapterPayload | undefined {
  if (!record) return undefined;
  const payload = record.payload as AdapterPayload;
  return record.consumedAt === null
    ? payload
    : { ...payload, consumed: Math.floor(record.consumedAt / 1000) };
}
