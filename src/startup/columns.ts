import { sql } from '../db/statements.js';
import type { SchemaSession } from './schema-session.js';
import { UnusableSchemaError } from './unusable-schema.js';

/** A column of the users table as information_schema describes it (sql.usersColumns). */
export interface ColumnInfo {
  name: string;
  /** DATA_TYPE: `int`, `varchar`, … */
  type: string;
  /** COLUMN_TYPE, as the message shows it: `int(11)`, `varchar(50)`, … */
  declared: string;
  /** The characters a character column holds; null for other types. */
  chars: number | null;
}

const INTEGER = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'bigint']);
const CHARACTER = new Set(['char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext']);
const TIME = new Set(['timestamp', 'datetime']);
/** The API accepts names and emails of up to this many characters. */
const MIN_CHARS = 100;

const needed: ReadonlyArray<{ name: string; wanted: string; fits: (column: ColumnInfo) => boolean }> = [
  { name: 'id', wanted: 'an integer type', fits: (column) => INTEGER.has(column.type) },
  { name: 'name', wanted: `a character type of at least ${MIN_CHARS} characters`, fits: holdsText },
  { name: 'email', wanted: `a character type of at least ${MIN_CHARS} characters`, fits: holdsText },
  { name: 'created_at', wanted: 'TIMESTAMP or DATETIME', fits: (column) => TIME.has(column.type) },
];

function holdsText(column: ColumnInfo): boolean {
  return CHARACTER.has(column.type) && (column.chars ?? 0) >= MIN_CHARS;
}

/** What keeps the service from using a users table with these columns, one phrase per column; empty when nothing does. */
export function columnProblems(columns: readonly ColumnInfo[]): string[] {
  const byName = new Map(columns.map((column) => [column.name.toLowerCase(), column]));
  return needed.flatMap(({ name, wanted, fits }) => {
    const column = byName.get(name);
    if (column === undefined) return [`lacks the column ${name} (${wanted})`];
    return fits(column) ? [] : [`has ${name} as ${column.declared}, which is not ${wanted}`];
  });
}

/** Throws UnusableSchemaError, naming each column at fault, unless the users table has the columns the service reads and writes. */
export async function checkColumns(session: SchemaSession, database: string): Promise<void> {
  const rows = await session.query<Array<{ name: string; type: string; declared: string; chars: unknown }>>(sql.usersColumns);
  const columns = rows.map((row) => ({
    name: String(row.name),
    type: String(row.type).toLowerCase(),
    declared: String(row.declared),
    chars: row.chars === null ? null : Number(row.chars),
  }));
  const problems = columnProblems(columns);
  if (problems.length > 0) throw new UnusableSchemaError(`The table ${database}.users cannot be used: it ${problems.join('; it ')}`);
}
