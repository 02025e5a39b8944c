import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, release, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../src/paths.js';

export interface Machine {
  cpuModel: string;
  cpus: number;
  memoryGb: number;
  os: string;
  node: string;
  database: string;
}

export function describeMachine(databaseVersion: string): Machine {
  return {
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    cpus: cpus().length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    os: `${type()} ${release()}`,
    node: process.version,
    database: databaseVersion,
  };
}

export function machineLine(machine: Machine): string {
  return `${machine.cpus} x ${machine.cpuModel}, ${machine.memoryGb} GB, ${machine.os}, Node ${machine.node}, ${machine.database}`;
}

/** Writes bench/results/<name> (the folder is gitignored) and returns its path. */
export async function writeResults(name: string, data: unknown): Promise<string> {
  const folder = join(projectRoot, 'bench', 'results');
  await mkdir(folder, { recursive: true });
  const file = join(folder, name);
  await writeFile(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

/** A plain-text table: the first column left-aligned, the others right-aligned. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

export function fixed(value: number, digits: number): string {
  return value.toFixed(digits);
}

/** Progress goes to stderr, so stdout holds only the results. */
export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}
