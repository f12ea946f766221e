import { Type } from 'typebox';
import { provenance, ProvenanceSchema } from '../provenance.js';
import { REFUSAL_MESSAGES, type RefusalCode } from '../semantic/refusals.js';

/** A refusal as answered: its code and its message in a provenance envelope. */
export function refusal<C extends RefusalCode>(code: C, operationId: string) {
  return {
    status: 'refused' as const,
    code,
    message: provenance(REFUSAL_MESSAGES[code], operationId, '$.message'),
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
