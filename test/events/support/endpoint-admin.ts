import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebhookSettings } from '../../../src/config/environment.js';
import type { TestDatabase } from '../../helpers/database.js';
import { request, type ApiResponse } from '../../helpers/http.js';
import { keyNew, type ApiKey } from '../../helpers/key-new.js';
import { startService, type RunningService, type ServiceOptions } from '../../helpers/service.js';

/** The keys of the endpoint tests: one with webhooks:admin, one that writes users, one that only reads them. */
export interface AdminKeys {
  admin: ApiKey;
  writer: ApiKey;
  reader: ApiKey;
  file: string;
  remove(): void;
}

export async function adminKeys(): Promise<AdminKeys> {
  const [admin, writer, reader] = await Promise.all([keyNew('hooks', 'webhooks:admin'), keyNew('writer', 'users:write'), keyNew('reader', 'users:read')]);
  const dir = mkdtempSync(join(tmpdir(), 'endpoint-admin-'));
  const file = join(dir, 'api-keys');
  writeFileSync(file, `${admin.line}\n${writer.line}\n${reader.line}\n`);
  return { admin, writer, reader, file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Webhook settings for the endpoint tests: receivers on 127.0.0.1 allowed unless said otherwise, short timeouts. */
export function endpointWebhooks(given: Partial<WebhookSettings> = {}): WebhookSettings {
  return {
    urls: [],
    secret: undefined,
    retryForSeconds: 86_400,
    timeoutSeconds: 5,
    concurrency: 8,
    allowNetworks: ['127.0.0.0/8', '::1/128'],
    httpsOnly: false,
    disableAfterSeconds: undefined,
    ...given,
  };
}

/** A service with EVENTS on, AUTH=writes and the keys' file; its webhooks as given. */
export function startAdminService(label: string, keys: AdminKeys, webhooks: WebhookSettings, options: ServiceOptions & { db?: TestDatabase } = {}): Promise<RunningService> {
  return startService(label, {
    auth: { mode: 'writes', apiKeysFile: keys.file },
    events: { retentionSeconds: 7 * 86_400, webhooks },
    ...options,
  });
}

/** A client of one service holding one token. */
export class EndpointClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string | undefined,
  ) {}

  call(method: string, path: string, json?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
    const auth: Record<string, string> = this.token === undefined ? {} : { authorization: `Bearer ${this.token}` };
    return request(this.baseUrl, method, path, { ...(json === undefined ? {} : { json }), headers: { ...auth, ...headers } });
  }

  /** A new endpoint; throws unless it was made. */
  async create(body: Record<string, unknown>): Promise<Endpoint> {
    const res = await this.call('POST', '/api/webhooks/endpoints', body);
    if (res.status !== 201) throw new Error(`creating an endpoint answered ${res.status}: ${res.text}`);
    return res.json as Endpoint;
  }

  /** A user created through the API (with the writer's token): resolves with its id. */
  async createUser(writerToken: string, name: string): Promise<number> {
    const res = await request(this.baseUrl, 'POST', '/api/users', { json: { name, email: `${name}@example.com` }, headers: { authorization: `Bearer ${writerToken}` } });
    if (res.status !== 201) throw new Error(`creating a user answered ${res.status}: ${res.text}`);
    return Number(res.headers.get('location')!.split('/').pop());
  }
}

export interface Endpoint {
  id: number;
  url: string;
  description: string | null;
  event_types: string[] | null;
  disabled: boolean;
  disabled_reason: string | null;
  metadata: Record<string, string>;
  source: 'api' | 'env';
  created_at: string;
  updated_at: string;
  secret?: string;
}
