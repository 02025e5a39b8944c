import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A delivery the receiver verified (Standard Webhooks' own check), with what it answered. */
export interface Delivery {
  webhookId: string;
  timestamp: string;
  contentType: string | undefined;
  /** The attempt's W3C `traceparent`. */
  traceparent: string | undefined;
  /** The Standard Webhooks headers as sent (one signature per key that signed). */
  signed: { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string };
  body: string;
  event: { id: number; type: string; timestamp: string; request_id: string | null; data: { id: number; name?: string; email?: string } };
  /** The status answered; undefined while the request is held. */
  status: number | undefined;
  /** When the request arrived and when it was answered (Date.now(), the clock the database's NOW() reads too). */
  arrivedAt: number;
  answeredAt: number | undefined;
}

/** What to answer a delivery: a status, or `hold` to keep the request open (until release()). */
export type Answer = number | 'hold';

/**
 * A webhook endpoint on 127.0.0.1, port 0: it verifies every request with the standardwebhooks
 * library (the secret's key is `key`), records it, and answers as `answer` says (204 by default).
 * It notes every overlap: the same webhook-id, or two events of the same user, in flight at once.
 */
export class Receiver {
  readonly key: Buffer;
  readonly received: Delivery[] = [];
  /** Requests that failed verification, with the reason. */
  readonly rejected: string[] = [];
  readonly overlaps: string[] = [];
  answer: (delivery: Delivery) => Answer = () => 204;
  private readonly verifier: Webhook;
  /** The most requests ever in flight at once. */
  maxInFlight = 0;
  private inFlight = 0;
  private readonly inFlightIds = new Map<string, number>();
  private readonly inFlightUsers = new Map<number, number>();
  private readonly held = new Set<(status: number) => void>();
  private readonly sockets = new Set<Socket>();
  private server: Server;
  port = 0;

  private constructor(readonly secret: string) {
    this.key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    this.verifier = new Webhook(secret);
    this.server = this.makeServer();
  }

  /** A receiver for `secret` (a new one unless given: endpoints of one service share WEBHOOK_SECRET). */
  static async start(secret = `whsec_${randomBytes(32).toString('base64')}`): Promise<Receiver> {
    const receiver = new Receiver(secret);
    await receiver.listen(0);
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  /** Acknowledged deliveries (answered 2xx), in the order they were answered. */
  acknowledged(): Delivery[] {
    return this.received.filter((one) => one.status !== undefined && one.status >= 200 && one.status < 300);
  }

  /** Event ids acknowledged, each as often as it was. */
  acknowledgedIds(): number[] {
    return this.acknowledged().map((one) => one.event.id);
  }

  /** Requests held open right now. */
  get holding(): number {
    return this.held.size;
  }

  /** Answers every held request with `status`. */
  release(status = 204): void {
    for (const answer of [...this.held]) answer(status);
  }

  /** Stops listening and cuts every connection: deliveries meanwhile find the port closed. */
  async refuse(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server = this.makeServer();
  }

  /** Listens again on the same port. */
  accept(): Promise<void> {
    return this.listen(this.port);
  }

  async close(): Promise<void> {
    this.held.clear();
    for (const socket of this.sockets) socket.destroy();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private makeServer(): Server {
    const server = createServer((req, res) => void this.handle(req, res));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    return server;
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.port = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrivedAt = Date.now();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    };
    try {
      this.verifier.verify(body, headers);
    } catch (error) {
      this.rejected.push(`${headers['webhook-id']}: ${(error as Error).message}`);
      res.writeHead(400).end();
      return;
    }
    const delivery: Delivery = {
      webhookId: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      contentType: req.headers['content-type'],
      traceparent: String(req.headers.traceparent),
      signed: headers,
      body,
      event: JSON.parse(body) as Delivery['event'],
      status: undefined,
      arrivedAt,
      answeredAt: undefined,
    };
    this.received.push(delivery);
    const done = this.track(delivery);
    res.once('close', done);
    const answer = this.answer(delivery);
    if (answer !== 'hold') return this.respond(res, delivery, answer, done);
    const release = (status: number): void => {
      this.held.delete(release);
      this.respond(res, delivery, status, done);
    };
    this.held.add(release);
    res.once('close', () => this.held.delete(release));
  }

  /** No longer in flight once answered: the sender may go on as soon as it reads the answer. */
  private respond(res: ServerResponse, delivery: Delivery, status: number, done: () => void): void {
    if (res.destroyed) return;
    done();
    delivery.status = status;
    delivery.answeredAt = Date.now();
    res.writeHead(status).end();
  }

  /** Counts the delivery in flight (noting any overlap) until the returned function is called. */
  private track(delivery: Delivery): () => void {
    const id = delivery.webhookId;
    const user = delivery.event.data.id;
    if ((this.inFlightIds.get(id) ?? 0) > 0) this.overlaps.push(`${id} delivered twice at once`);
    if ((this.inFlightUsers.get(user) ?? 0) > 0) this.overlaps.push(`user ${user}: ${id} while another of its events was in flight`);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    this.inFlightIds.set(id, (this.inFlightIds.get(id) ?? 0) + 1);
    this.inFlightUsers.set(user, (this.inFlightUsers.get(user) ?? 0) + 1);
    let counted = true;
    return () => {
      if (!counted) return;
      counted = false;
      this.inFlight--;
      this.inFlightIds.set(id, this.inFlightIds.get(id)! - 1);
      this.inFlightUsers.set(user, this.inFlightUsers.get(user)! - 1);
    };
  }
}
