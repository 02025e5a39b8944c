import { request, type ApiResponse } from '../../helpers/http.js';
import { isAllowedError } from './cluster-service.js';

export type EventType = 'user.created' | 'user.updated' | 'user.deleted';

/** One request of the load, named by its X-Request-Id, and the event an acknowledged one must have recorded. */
export interface SentChange {
  requestId: string;
  type: EventType;
  /** Unknown only for a create that was not acknowledged (no Location). */
  userId: number | undefined;
  /** The fields the event must hold: what the request wrote (null for a removal). */
  name: string | null;
  email: string | null;
  status: number | 'network';
  /** When the answer came (performance.now()). */
  at: number;
  /** Set for an answer the contract does not allow: anything but 2xx or a JSON 500/503. */
  wrong?: string;
}

export interface EventClient {
  /** The client's own user: PUT and PATCH change its name, never its email. */
  id: number;
  email: string;
  baseUrl: string;
  /** Prefix of its request ids, names and emails, unique over the whole scenario. */
  tag: string;
}

/** How many creates a client sends at once: concurrent creates share one INSERT (and one event statement). */
const CREATES_AT_ONCE = 4;

/**
 * Clients each looping over a burst of creates, a PUT and a PATCH of their own user, and a DELETE
 * of a user they created, until stopped; every request carries an X-Request-Id of its own, and
 * every answer is recorded with the event it must have caused. Clients write through the service
 * each is given, so several services (on several nodes) can share one load.
 */
export class EventLoad {
  readonly clients: EventClient[] = [];
  readonly sent: SentChange[] = [];
  private stopped = false;
  private running: Promise<void> = Promise.resolve();

  /** A client with a user of its own, created through `baseUrl` before the load starts (its event is one of the load's). */
  async addClient(baseUrl: string, tag: string): Promise<void> {
    const email = `${tag}@events.example`;
    const id = await this.create(baseUrl, changeOf({ tag }, 0, 'user.created', undefined, `${tag} v0`, email));
    if (id === undefined) throw new Error(`${tag}'s user was not created: ${JSON.stringify(this.sent.at(-1))}`);
    this.clients.push({ id, email, baseUrl, tag });
  }

  start(): void {
    this.stopped = false;
    this.running = Promise.all(this.clients.map((client) => this.loop(client))).then(() => {});
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  get acknowledged(): SentChange[] {
    return this.sent.filter((change) => isSuccess(change.status));
  }

  /** How many changes of each type were acknowledged, for the log: `created 812, updated 301, deleted 140`. */
  acknowledgedByType(): string {
    const counts = new Map<string, number>();
    for (const { type } of this.acknowledged) counts.set(type, (counts.get(type) ?? 0) + 1);
    return [...counts].map(([type, n]) => `${type.slice('user.'.length)} ${n}`).join(', ');
  }

  private async loop(client: EventClient): Promise<void> {
    const created: number[] = [];
    for (let seq = 1; !this.stopped; seq++) {
      const step = seq % 4;
      if (step === 0 || (step === 3 && created.length === 0)) {
        const ids = await Promise.all(
          Array.from({ length: CREATES_AT_ONCE }, (_, n) => {
            const name = `${client.tag} new ${seq}.${n}`;
            return this.create(client.baseUrl, changeOf(client, `${seq}.${n}`, 'user.created', undefined, name, `${client.tag}-new-${seq}.${n}@events.example`));
          }),
        );
        for (const id of ids) if (id !== undefined) created.push(id);
      } else if (step === 1) {
        const name = `${client.tag} v${seq}`;
        await this.send(changeOf(client, seq, 'user.updated', client.id, name, client.email), client.baseUrl, 'PUT', `/api/users/${client.id}`, { name, email: client.email });
      } else if (step === 2) {
        const name = `${client.tag} p${seq}`;
        await this.send(changeOf(client, seq, 'user.updated', client.id, name, client.email), client.baseUrl, 'PATCH', `/api/users/${client.id}`, { name });
      } else {
        // Whatever its answer, the user is not deleted again: a 500 may have hidden the removal.
        const id = created.shift()!;
        await this.send(changeOf(client, seq, 'user.deleted', id, null, null), client.baseUrl, 'DELETE', `/api/users/${id}`);
      }
    }
  }

  /** The new user's id when the create was acknowledged. */
  private async create(baseUrl: string, change: SentChange): Promise<number | undefined> {
    const res = await this.send(change, baseUrl, 'POST', '/api/users', { name: change.name, email: change.email });
    if (res?.status !== 201) return undefined;
    change.userId = Number(res.headers.get('location')!.split('/').pop());
    return change.userId;
  }

  /** Sends the request `change` describes and records its answer. */
  private async send(change: SentChange, baseUrl: string, method: string, path: string, json?: unknown): Promise<ApiResponse | undefined> {
    this.sent.push(change);
    try {
      const res = await request(baseUrl, method, path, { ...(json === undefined ? {} : { json }), headers: { 'x-request-id': change.requestId } });
      change.at = performance.now();
      change.status = res.status;
      if (!isSuccess(res.status) && !isAllowedError(res)) change.wrong = `${method} ${path}: ${res.status} ${res.text}`;
      return res;
    } catch (error) {
      change.at = performance.now();
      change.wrong = `${method} ${path}: no answer: ${String(error)}`;
      return undefined;
    }
  }
}

function changeOf(client: Pick<EventClient, 'tag'>, seq: number | string, type: EventType, userId: number | undefined, name: string | null, email: string | null): SentChange {
  return { requestId: `${client.tag}-${seq}`, type, userId, name, email, status: 'network', at: Infinity };
}

export function isSuccess(status: number | 'network'): boolean {
  return typeof status === 'number' && status >= 200 && status < 300;
}
