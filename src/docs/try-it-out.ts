type Json = Record<string, unknown>;

/**
 * The description the docs page reads (`/apidocs/openapi.json`): the served one, with every optional
 * parameter's example left out. Swagger UI fills "Try it out" fields from examples, so every
 * visitor would send the same `X-Request-Id`, replay each other's creates under one
 * `Idempotency-Key`, and resume the event stream `after=42`. The examples stay in `/openapi.json`,
 * the documentation; a required parameter keeps its example (the list's `pwd` field, the path's id).
 */
export function tryItOutDescription(served: Json): Json {
  const copy = structuredClone(served);
  const parameters = (copy.components as Json | undefined)?.parameters as Record<string, Json> | undefined;
  for (const parameter of Object.values(parameters ?? {})) withoutExamples(parameter);
  for (const item of Object.values((copy.paths as Record<string, Json> | undefined) ?? {})) {
    for (const parameter of (item.parameters as Json[] | undefined) ?? []) withoutExamples(parameter);
    for (const operation of Object.values(item)) {
      if (typeof operation !== 'object' || operation === null || Array.isArray(operation)) continue;
      for (const parameter of ((operation as Json).parameters as Json[] | undefined) ?? []) withoutExamples(parameter);
    }
  }
  return copy;
}

function withoutExamples(parameter: Json): void {
  if (parameter.required === true || '$ref' in parameter) return;
  delete parameter.example;
  delete parameter.examples;
  const schema = parameter.schema as Json | undefined;
  if (schema !== undefined) {
    delete schema.example;
    delete schema.examples;
    delete schema.default;
  }
}
