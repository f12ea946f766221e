import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Static, TSchema } from 'typebox';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

let ajv: Ajv | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * The process's one validator of a JSON schema (an operation's input, a stored definition's
 * shape), compiled on first use and shared by every service the process runs: a compiled
 * validator keeps no state between calls but `errors`, read at once after each, on the one
 * thread (tests run several services a process; compiling every operation's again took 150 ms).
 * Ajv as the API checks input with: the formats (`date`, `date-time`, …); no coercion (query
 * parameters are typed by typedQuery); no defaults filled in; removeAdditional off, so an unknown
 * member is a strictness error, never silently dropped; TypeBox's own keywords not complained
 * of; `verbose`, so each error carries its schema (and value), from which the 404's message says
 * which rule was broken (src/operations/strictness.ts).
 */
export function validatorOf(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    ajv ??= addFormats(
      new Ajv({
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: false,
        strict: false,
        allErrors: false,
        verbose: true,
      }),
    );
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/**
 * Whether a value has a TypeBox schema's shape, by the validator that checks the API's input.
 * (TypeBox's own `Value.Check` loads 306 more modules of `typebox/value`, about a tenth of a
 * second of every process's start, for the two checks of stored definitions.)
 */
export function schemaCheck<T extends TSchema>(schema: T): (value: unknown) => value is Static<T> {
  return (value: unknown): value is Static<T> => validatorOf(schema)(value) === true;
}
