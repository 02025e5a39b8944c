import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiCompatModes } from '../../src/config/environment.js';
import { describeMode } from '../../src/docs/openapi-modes.js';
import { document, type Example, type Schema } from './document.js';
import { schemaErrors } from './schemas.js';

interface ExampleCheck {
  /** JSON pointer of the example in openapi.json. */
  where: string;
  schema: Schema;
  value: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Every example in the document beside the schema it illustrates: `example`/`examples` of a
 * parameter, header or media type, and the `examples` array of any schema.
 */
function collectExamples(node: unknown, where: string, found: ExampleCheck[] = []): ExampleCheck[] {
  if (Array.isArray(node)) node.forEach((item, i) => collectExamples(item, `${where}/${i}`, found));
  if (!isObject(node)) return found;
  if (isObject(node.schema)) {
    const schema = node.schema;
    if ('example' in node) found.push({ where: `${where}/example`, schema, value: node.example });
    if (isObject(node.examples)) {
      for (const [name, example] of Object.entries(node.examples)) {
        found.push({ where: `${where}/examples/${name}`, schema, value: (example as Example).value });
      }
    }
  }
  if (Array.isArray(node.examples)) {
    const schema = node;
    node.examples.forEach((value, i) => found.push({ where: `${where}/examples/${i}`, schema, value }));
  }
  for (const [key, value] of Object.entries(node)) collectExamples(value, `${where}/${key}`, found);
  return found;
}

type MediaTypeAt = [where: string, media: unknown];

/** Every media type in the document, request bodies and responses alike. */
function collectMediaTypes(node: unknown, where: string, found: MediaTypeAt[] = []): MediaTypeAt[] {
  if (!isObject(node)) return found;
  if (isObject(node.content)) {
    for (const [type, media] of Object.entries(node.content)) found.push([`${where}/content/${type}`, media]);
  }
  for (const [key, value] of Object.entries(node)) collectMediaTypes(value, `${where}/${key}`, found);
  return found;
}

/** openapi.json, and the description served in each compatibility mode. */
const descriptions = apiCompatModes.map((mode) => [mode, describeMode(document as unknown as Record<string, unknown>, mode)] as const);

for (const [mode, described] of descriptions) {
  test(`API_COMPAT=${mode}: every documented example validates against the schema it illustrates`, () => {
    const examples = collectExamples(described, '#');
    assert.ok(examples.length >= 30, `only ${examples.length} examples found`);
    const invalid = examples.flatMap(({ where, schema, value }) => {
      const errors = schemaErrors(schema, value);
      return errors ? [`${where}: ${errors}`] : [];
    });
    assert.deepEqual(invalid, []);
  });

  test(`API_COMPAT=${mode}: every request and response body documents a schema and at least one named example`, () => {
    const mediaTypes = collectMediaTypes(described, '#');
    assert.ok(mediaTypes.length >= 10, `only ${mediaTypes.length} media types found`);
    const documented = (media: unknown): boolean =>
      isObject(media) && isObject(media.schema) && isObject(media.examples) && Object.keys(media.examples).length > 0;
    const lacking = mediaTypes.filter(([, media]) => !documented(media)).map(([where]) => where);
    assert.deepEqual(lacking, []);
  });
}

test('an example that breaks its schema is caught (the check above can fail)', () => {
  const user = document.components.schemas.User!;
  assert.notEqual(schemaErrors(user, { id: 1, name: 'A', email: 'a@b.c', created_at: 'yesterday' }), undefined);
  assert.notEqual(schemaErrors(user, { id: 1, name: 'A', email: 'a@b.c' }), undefined);
  const valid = { id: 1, name: 'A', email: 'a@b.c', created_at: '2026-11-22T01:25:36.000Z' };
  assert.equal(schemaErrors(user, valid), undefined);
});
