import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { document, type Schema } from './document.js';

/** OpenAPI 3.1 schemas are JSON Schema 2020-12; the components are registered under this id. */
const COMPONENTS_ID = 'urn:user-service:openapi-components';

const RFC3339_DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/i;

const ajv = new Ajv2020({ strict: true, allErrors: true });
// Annotations of the OpenAPI 3.1 base vocabulary, which a schema may carry (the served
// descriptions put a header's `example` in its schema); they validate nothing.
ajv.addVocabulary(['example', 'xml', 'externalDocs']);
ajv.addFormat('date-time', {
  type: 'string',
  validate: (value) => RFC3339_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
});
ajv.addFormat('int32', {
  type: 'number',
  validate: (value) => Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31,
});
ajv.addSchema({ $id: COMPONENTS_ID, $defs: pointRefsAtComponents(document.components.schemas) });

const compiled = new Map<Schema, ValidateFunction>();

/** Validates a value against a documented schema; returns Ajv's error text, or undefined when it is valid. */
export function schemaErrors(schema: Schema, value: unknown): string | undefined {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(pointRefsAtComponents(schema) as Schema);
    compiled.set(schema, validate);
  }
  return validate(value) ? undefined : ajv.errorsText(validate.errors);
}

/** Rewrites `#/components/schemas/X` to the registered components, so a schema compiles on its own. */
function pointRefsAtComponents<T>(node: T): T {
  if (Array.isArray(node)) return node.map(pointRefsAtComponents) as T;
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string'
        ? value.replace('#/components/schemas/', `${COMPONENTS_ID}#/$defs/`)
        : pointRefsAtComponents(value),
    ]),
  ) as T;
}
