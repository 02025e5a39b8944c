import type { ServerResponse } from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.md': 'text/markdown; charset=utf-8',
};

export interface StaticFile {
  contentType: string;
  body: Buffer;
}

/**
 * The files directly inside one folder, found once at start-up and looked up by exact name, so a
 * request can never reach outside it (no path is ever joined from request input).
 */
export class StaticFolder {
  private readonly paths = new Map<string, string>();
  private readonly cache = new Map<string, StaticFile>();

  constructor(folder: string, exclude: ReadonlySet<string> = new Set()) {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isFile() && !exclude.has(entry.name) && extname(entry.name) in contentTypes) {
        this.paths.set(entry.name, join(folder, entry.name));
      }
    }
  }

  has(name: string): boolean {
    return this.paths.has(name);
  }

  get(name: string): StaticFile | undefined {
    let file = this.cache.get(name);
    const path = this.paths.get(name);
    if (!file && path) {
      file = { contentType: contentTypes[extname(name)]!, body: readFileSync(path) };
      this.cache.set(name, file);
    }
    return file;
  }
}

export function sendStatic(
  res: ServerResponse,
  contentType: string,
  body: string | Buffer,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(200, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Access-Control-Allow-Origin': '*',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(body);
}
