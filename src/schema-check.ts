import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Static, TSchema } from 'typebox';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * An Ajv as the API checks input with: the formats (`date`, `date-time`, …), no coercion, no
 * defaults filled in, no unknown member dropped (an unknown member is an error of the schema's
 * own `additionalProperties`), and no complaint about TypeBox's own keywords.
 */
export function schemaValidator(options: Options = {}): Ajv {
  return addFormats(
    new Ajv({
      coerceTypes: false,
      removeAdditional: false,
      useDefaults: false,
      strict: false,
      ...options,
    }),
  );
}

let shared: Ajv | undefined;

/**
 * Whether a value has a TypeBox schema's shape, by the validator that checks the API's input,
 * compiled on first use. (TypeBox's own `Value.Check` loads 306 more modules of `typebox/value`,
 * about a tenth of a second of every process's start, for the two checks of stored definitions.)
 */
export function schemaCheck<T extends TSchema>(schema: T): (value: unknown) => value is Static<T> {
  let validate: ValidateFunction | undefined;
  return (value: unknown): value is Static<T> => {
    validate ??= (shared ??= schemaValidator()).compile(schema);
    return validate(value) === true;
  };
}
