export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface RequestOptions {
  /** Serialised as JSON with Content-Type application/json. */
  json?: unknown;
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  /** How long the whole exchange may take before it fails with a TimeoutError; 15 s unless given. */
  timeoutMs?: number;
}

/** One request over real HTTP, with the body read fully and parsed when it is JSON. */
export async function request(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(baseUrl + path, { method, headers, body, signal: AbortSignal.timeout(options.timeoutMs ?? 15_000) });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** The port of a base URL such as http://127.0.0.1:40123. */
export function portOf(baseUrl: string): number {
  return Number(new URL(baseUrl).port);
}
