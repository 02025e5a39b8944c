import { request, type ApiResponse } from '../../helpers/http.js';
import { isAllowedError } from './cluster-service.js';

export type Op = 'create' | 'update' | 'read';

export interface Outcome {
  op: Op;
  /** When the request was sent (performance.now()). */
  sentAt: number;
  /** When the answer came (performance.now()). */
  at: number;
  status: number | 'network';
  /** How long the answer took. */
  ms: number;
  /** Set for an answer that breaks the contract: a wrong status, a stale read, no answer. */
  wrong?: string;
}

export interface LoadClient {
  /** The client's own user, updated and read back by it. */
  id: number;
  email: string;
}

/**
 * Clients each looping over create, update of their own user, read of their own user, one request
 * at a time, until stopped. It records every answer, the creates acknowledged (201) and not, and
 * for each client the highest update acknowledged and sent: a read must show a value at least as
 * new as the last acknowledged before it was sent.
 */
export class MixedLoad {
  readonly outcomes: Outcome[] = [];
  readonly acknowledgedCreates = new Set<string>();
  readonly unacknowledgedCreates = new Set<string>();
  readonly lastAcknowledged: number[];
  readonly lastSent: number[];
  private stopped = false;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly baseUrl: string,
    readonly clients: LoadClient[],
  ) {
    // Each client's user starts as updatedName(i, 0).
    this.lastAcknowledged = clients.map(() => 0);
    this.lastSent = clients.map(() => 0);
  }

  start(): void {
    this.stopped = false;
    this.running = Promise.all(this.clients.map((_, i) => this.loop(i))).then(() => {});
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** The name an update with sequence number `seq` gives client `i`'s user. */
  static updatedName(i: number, seq: number): string {
    return `client ${i} v${seq}`;
  }

  static sequenceOf(name: string): number {
    return Number(/ v(\d+)$/.exec(name)?.[1] ?? -1);
  }

  private async loop(i: number): Promise<void> {
    const client = this.clients[i]!;
    for (let seq = 1; !this.stopped; seq++) {
      const op: Op = (['create', 'update', 'read'] as const)[seq % 3]!;
      const sentAt = performance.now();
      let answer: Answer;
      try {
        if (op === 'create') answer = await this.create(i, seq);
        else if (op === 'update') answer = await this.update(i, client, seq);
        else answer = await this.read(i, client);
      } catch (error) {
        answer = { status: 'network', wrong: `no answer: ${String(error)}` };
      }
      const at = performance.now();
      this.outcomes.push({ op, sentAt, at, ms: at - sentAt, ...answer });
    }
  }

  private async create(i: number, seq: number): Promise<Answer> {
    const email = `load-${i}-${seq}@example.com`;
    this.unacknowledgedCreates.add(email);
    const res = await request(this.baseUrl, 'POST', '/api/users', { json: { name: `load ${i} ${seq}`, email } });
    if (res.status === 201) {
      this.unacknowledgedCreates.delete(email);
      this.acknowledgedCreates.add(email);
    }
    return judged(res, res.status === 201);
  }

  private async update(i: number, client: LoadClient, seq: number): Promise<Answer> {
    this.lastSent[i] = seq;
    const res = await request(this.baseUrl, 'PUT', `/api/users/${client.id}`, { json: { name: MixedLoad.updatedName(i, seq), email: client.email } });
    if (res.status === 200) this.lastAcknowledged[i] = seq;
    return judged(res, res.status === 200);
  }

  private async read(i: number, client: LoadClient): Promise<Answer> {
    const floor = this.lastAcknowledged[i]!;
    const res = await request(this.baseUrl, 'GET', `/api/users/${client.id}`);
    if (res.status !== 200) return judged(res, false);
    const seen = MixedLoad.sequenceOf((res.json as { name: string }).name);
    const fresh = seen >= floor && seen <= this.lastSent[i]!;
    return { status: 200, ...(fresh ? {} : { wrong: `read v${seen}, acknowledged v${floor}` }) };
  }
}

/** What an answer was, and whether it broke the contract. */
type Answer = Pick<Outcome, 'status' | 'wrong'>;

function judged(res: ApiResponse, success: boolean): Answer {
  const wrong = success || isAllowedError(res) ? undefined : `${res.status} ${res.text}`;
  return { status: res.status, ...(wrong ? { wrong } : {}) };
}
