import { Type } from 'typebox';
import { provenance, ProvenanceSchema } from '../provenance.js';
import { REFUSAL_MESSAGES, type RefusalCode } from '../semantic/refusals.js';

/**
 * A refusal as answered: its code and its message in a provenance envelope; the message is the
 * code's fixed text unless a more precise one is given (bad_filter says which filter and why).
 */
export function refusal<C extends RefusalCode>(
  code: C,
  operationId: string,
  message: string = REFUSAL_MESSAGES[code],
) {
  return {
    status: 'refused' as const,
    code,
    message: provenance(message, operationId, '$.message'),
  };
}

/** The refusal of list operations: status, code and message only (DESIGN §4.8). */
export const ListRefusalSchema = Type.Object(
  {
    status: Type.Literal('refused'),
    code: Type.Literal('invalid_cursor'),
    message: ProvenanceSchema,
  },
  { additionalProperties: false },
);

/** The change feed's refusal: an invalid cursor, or one older than the kept tombstones. */
export const ChangesRefusalSchema = Type.Object(
  {
    status: Type.Literal('refused'),
    code: Type.Union([Type.Literal('invalid_cursor'), Type.Literal('cursor_expired')]),
    message: ProvenanceSchema,
  },
  { additionalProperties: false },
);
