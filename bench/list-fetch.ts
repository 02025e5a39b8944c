import { get } from 'node:http';
import { seededUser } from './workload.js';

export interface FetchedList {
  seconds: number;
  bytes: number;
  rows: number;
}

export const HEAD_BYTES = 512;
export const TAIL_BYTES = 512;
/** The length of `"YYYY-MM-DDTHH:MM:SS.000Z"`, every seeded user's created_at. */
const QUOTED_TIME_LENGTH = 26;

/** GET the list once, time it and check it; `rows` seeded users are expected. */
export type FetchList = (url: string, rows: number) => Promise<FetchedList>;

/**
 * Fetches the list once with Node's HTTP client, streaming, keeping only its head and tail: a
 * client that inspected every byte would take CPU from the service and the database on a small
 * machine. The fallback of fetchListWithCurl.
 */
export function fetchList(url: string, rows: number): Promise<FetchedList> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = get(url, { agent: false }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        return reject(new Error(`GET list answered ${response.statusCode}`));
      }
      let bytes = 0;
      let head: Buffer = Buffer.alloc(0);
      let tail: Buffer = Buffer.alloc(0);
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (head.length < HEAD_BYTES) head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES)]);
        tail = chunk.length >= TAIL_BYTES ? chunk.subarray(-TAIL_BYTES) : Buffer.concat([tail, chunk]).subarray(-TAIL_BYTES);
      });
      response.on('error', reject);
      response.on('end', () => {
        const seconds = (performance.now() - started) / 1000;
        const problem = listProblem(head.toString('utf8'), tail.toString('utf8'), bytes, rows);
        if (problem) reject(new Error(`list response is not the expected JSON array: ${problem}`));
        else resolve({ seconds, bytes, rows });
      });
    });
    request.on('error', reject);
  });
}

/**
 * The byte length of the list of `rows` seeded users, as the API writes it. A seeded user's length
 * depends only on how many digits its id has, so one user of each digit count stands for all.
 */
export function seededListBytes(rows: number): number {
  let bytes = 2 + Math.max(rows - 1, 0);
  for (let first = 1; first <= rows; first *= 10) {
    const last = Math.min(rows, first * 10 - 1);
    bytes += (last - first + 1) * seededUserBytes(first);
  }
  return bytes;
}

function seededUserBytes(id: number): number {
  const [name, email] = seededUser(id);
  const user = `{"id":${id},"name":${JSON.stringify(name)},"email":${JSON.stringify(email)},"created_at":}`;
  return Buffer.byteLength(user) + QUOTED_TIME_LENGTH;
}

/**
 * Strict for seeded users without reading every byte: the body is exactly as long as their array,
 * starts with user 1 and ends with user `rows`, so a missing, extra or cut row fails it.
 */
export function listProblem(head: string, tail: string, bytes: number, rows: number): string | undefined {
  const expectedBytes = seededListBytes(rows);
  if (bytes !== expectedBytes) return `${bytes} bytes, expected ${expectedBytes} for ${rows} users`;
  const first = firstUser(head);
  if (first?.id !== 1) return `starts with ${JSON.stringify(head.slice(0, 32))}`;
  if (!tail.endsWith('}]')) return `ends with ${JSON.stringify(tail.slice(-16))}`;
  const last = JSON.parse(tail.slice(tail.lastIndexOf('{"id":'), -1)) as { id?: unknown };
  if (last.id !== rows) return `last id is ${String(last.id)}, expected ${rows}`;
  return undefined;
}

function firstUser(head: string): { id?: unknown } | undefined {
  if (!head.startsWith('[{')) return undefined;
  try {
    return JSON.parse(head.slice(1, head.indexOf('}') + 1)) as { id?: unknown };
  } catch {
    return undefined;
  }
}
