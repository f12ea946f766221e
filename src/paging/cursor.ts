import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/**
 * Opaque cursors (DESIGN §4.5): the position is encrypted (AES-256-GCM) so a cursor carries no
 * readable data, and the whole is authenticated with an HMAC over the binding (token, operation,
 * order and, for reports, the normalised query), so a cursor used anywhere else fails to verify.
 */
export interface CursorCodec {
  encode(binding: string, payload: unknown): string;
  /** The payload, or null when the cursor is malformed, tampered with or bound elsewhere. */
  decode(binding: string, cursor: string): unknown | null;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAC_BYTES = 16;

/** Random bytes drawn from the system's generator at once, each IV a slice used once. */
const IV_POOL_BYTES = 4096;

/**
 * Fresh random IVs, IV_POOL_BYTES from `randomBytes` at a time (as Node's randomUUID keeps its
 * own): a call into the generator per cursor was a fifth of what making one cost.
 */
function ivSource(): () => Buffer {
  let pool = Buffer.alloc(0);
  let next = 0;
  return () => {
    if (next + IV_BYTES > pool.length) {
      pool = randomBytes(IV_POOL_BYTES);
      next = 0;
    }
    next += IV_BYTES;
    return pool.subarray(next - IV_BYTES, next);
  };
}

export function createCursorCodec(secret: string): CursorCodec {
  const master = Buffer.from(secret, 'utf8');
  // Key objects made once: given as bytes, each cipher and HMAC made its own (two thirds of a
  // cursor's cost).
  const encKey = createSecretKey(
    Buffer.from(hkdfSync('sha256', master, 'vms-read', 'cursor-encryption', 32)),
  );
  const macKey = createSecretKey(
    Buffer.from(hkdfSync('sha256', master, 'vms-read', 'cursor-mac', 32)),
  );
  const freshIv = ivSource();
  const mac = (binding: string, body: Buffer) =>
    createHmac('sha256', macKey)
      .update(binding)
      .update('\0')
      .update(body)
      .digest()
      .subarray(0, MAC_BYTES);

  return {
    encode(binding, payload) {
      const iv = freshIv();
      const cipher = createCipheriv('aes-256-gcm', encKey, iv);
      const sealed = Buffer.concat([
        cipher.update(JSON.stringify(payload), 'utf8'),
        cipher.final(),
      ]);
      const body = Buffer.concat([iv, cipher.getAuthTag(), sealed]);
      return Buffer.concat([mac(binding, body), body]).toString('base64url');
    },
    decode(binding, cursor) {
      if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
      const raw = Buffer.from(cursor, 'base64url');
      if (raw.length <= MAC_BYTES + IV_BYTES + TAG_BYTES) return null;
      const body = raw.subarray(MAC_BYTES);
      if (!timingSafeEqual(raw.subarray(0, MAC_BYTES), mac(binding, body))) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', encKey, body.subarray(0, IV_BYTES));
        decipher.setAuthTag(body.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        const plain = Buffer.concat([
          decipher.update(body.subarray(IV_BYTES + TAG_BYTES)),
          decipher.final(),
        ]);
        return JSON.parse(plain.toString('utf8')) as unknown;
      } catch {
        return null;
      }
    },
  };
}

/**
 * The binding of a resource-list cursor: token, operation, order and the filters given (DESIGN
 * §4.15), as `[name, value]` pairs in a fixed order. Without filters it is what it was before
 * lists had them, so cursors already handed out stay good.
 */
export function listBinding(
  tokenId: string,
  operationId: string,
  order: string,
  filters: readonly (readonly [string, string])[] = [],
): string {
  const bound: unknown[] = ['list', tokenId, operationId, order];
  if (filters.length > 0) bound.push(filters);
  return JSON.stringify(bound);
}
