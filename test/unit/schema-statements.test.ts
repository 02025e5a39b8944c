import assert from 'node:assert/strict';
import { test } from 'node:test';
import { schemaStatements } from '../../src/startup/schema.js';

test('schema.sql splits into the CREATE TABLE and the seed INSERT, both aimed at the given table', () => {
  const statements = schemaStatements('users_staging');
  assert.equal(statements.length, 2);
  assert.match(statements[0]!, /^CREATE TABLE(?: IF NOT EXISTS)? `users_staging`/);
  assert.match(statements[0]!, /utf8mb4/);
  assert.match(statements[1]!, /^INSERT INTO `users_staging`/);
  assert.equal(statements[1]!.match(/\('[^']*', '[^']*@example\.com'\)/g)?.length, 10, 'ten seed users');
  for (const statement of statements) assert.doesNotMatch(statement, /--/, 'comments are stripped');
});
