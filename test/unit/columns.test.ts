import assert from 'node:assert/strict';
import { test } from 'node:test';
import { columnProblems, type ColumnInfo } from '../../src/startup/columns.js';

const usable: ColumnInfo[] = [
  { name: 'id', type: 'int', declared: 'int(11)', chars: null },
  { name: 'name', type: 'varchar', declared: 'varchar(100)', chars: 100 },
  { name: 'email', type: 'varchar', declared: 'varchar(100)', chars: 100 },
  { name: 'created_at', type: 'timestamp', declared: 'timestamp', chars: null },
];

function replaced(name: string, column: Partial<ColumnInfo> | undefined): ColumnInfo[] {
  return usable.flatMap((each) => (each.name !== name ? [each] : column === undefined ? [] : [{ ...each, ...column }]));
}

const rows: Array<{ rule: string; columns: ColumnInfo[]; problems: string[] }> = [
  { rule: 'the table of schema.sql is usable', columns: usable, problems: [] },
  {
    rule: 'wider and other compatible types are usable: BIGINT id, TEXT name, CHAR(255) email, DATETIME created_at, extra columns',
    columns: [
      { name: 'id', type: 'bigint', declared: 'bigint(20) unsigned', chars: null },
      { name: 'name', type: 'text', declared: 'text', chars: 16383 },
      { name: 'EMAIL', type: 'char', declared: 'char(255)', chars: 255 },
      { name: 'created_at', type: 'datetime', declared: 'datetime(6)', chars: null },
      { name: 'note', type: 'blob', declared: 'blob', chars: null },
    ],
    problems: [],
  },
  { rule: 'a missing column is named with what it must be', columns: replaced('created_at', undefined), problems: ['lacks the column created_at (TIMESTAMP or DATETIME)'] },
  {
    rule: 'a character column shorter than 100 characters is refused',
    columns: replaced('name', { declared: 'varchar(99)', chars: 99 }),
    problems: ['has name as varchar(99), which is not a character type of at least 100 characters'],
  },
  {
    rule: 'a TINYTEXT holds 255 bytes, 63 characters of utf8mb4: refused',
    columns: replaced('email', { type: 'tinytext', declared: 'tinytext', chars: 63 }),
    problems: ['has email as tinytext, which is not a character type of at least 100 characters'],
  },
  {
    rule: 'binary strings are not character types',
    columns: replaced('email', { type: 'varbinary', declared: 'varbinary(200)', chars: null }),
    problems: ['has email as varbinary(200), which is not a character type of at least 100 characters'],
  },
  { rule: 'a non-integer id is refused', columns: replaced('id', { type: 'decimal', declared: 'decimal(10,2)' }), problems: ['has id as decimal(10,2), which is not an integer type'] },
  { rule: 'a DATE created_at is refused', columns: replaced('created_at', { type: 'date', declared: 'date' }), problems: ['has created_at as date, which is not TIMESTAMP or DATETIME'] },
  {
    rule: 'every problem is named, in column order',
    columns: replaced('id', undefined).filter((column) => column.name !== 'email'),
    problems: ['lacks the column id (an integer type)', 'lacks the column email (a character type of at least 100 characters)'],
  },
];

for (const { rule, columns, problems } of rows) {
  test(`columns: ${rule}`, () => {
    assert.deepEqual(columnProblems(columns), problems);
  });
}
