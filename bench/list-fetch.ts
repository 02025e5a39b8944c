import { get } from 'node:http';

export interface FetchedList {
  seconds: number;
  bytes: number;
  rows: number;
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const TAIL_BYTES = 512;

/**
 * Fetches the list once, streaming: counts bytes and objects without holding the body. The check
 * is cheap but strict enough for generated users (whose names hold no braces): the body is
 * `[{"id":1,...},...,{"id":<rows>,...}]` with `rows` objects.
 */
export function fetchList(url: string, expectedRows: number): Promise<FetchedList> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = get(url, { agent: false }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        return reject(new Error(`GET list answered ${response.statusCode}`));
      }
      let bytes = 0;
      let opens = 0;
      let closes = 0;
      let head = '';
      let tail = Buffer.alloc(0);
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        opens += countByte(chunk, OPEN_BRACE);
        closes += countByte(chunk, CLOSE_BRACE);
        if (head.length < 16) head += chunk.subarray(0, 16).toString('latin1');
        tail = Buffer.concat([tail, chunk.subarray(-TAIL_BYTES)]).subarray(-TAIL_BYTES);
      });
      response.on('error', reject);
      response.on('end', () => {
        const seconds = (performance.now() - started) / 1000;
        const problem = shapeProblem(head, tail.toString('utf8'), opens, closes, expectedRows);
        if (problem) reject(new Error(`list response is not the expected JSON array: ${problem}`));
        else resolve({ seconds, bytes, rows: opens });
      });
    });
    request.on('error', reject);
  });
}

function shapeProblem(head: string, tail: string, opens: number, closes: number, rows: number): string | undefined {
  if (!head.startsWith('[{"id":1,')) return `starts with ${JSON.stringify(head)}`;
  if (!tail.endsWith('}]')) return `ends with ${JSON.stringify(tail.slice(-16))}`;
  if (opens !== rows || closes !== rows) return `${opens} "{" and ${closes} "}" for ${rows} users`;
  const last = JSON.parse(tail.slice(tail.lastIndexOf('{"id":'), -1)) as { id?: unknown };
  if (last.id !== rows) return `last id is ${String(last.id)}, expected ${rows}`;
  return undefined;
}

function countByte(chunk: Buffer, byte: number): number {
  let count = 0;
  for (let at = chunk.indexOf(byte); at !== -1; at = chunk.indexOf(byte, at + 1)) count++;
  return count;
}
