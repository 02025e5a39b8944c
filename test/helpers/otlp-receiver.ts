import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A span as OTLP/HTTP JSON carries it (ids as hex, attributes as typed values). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number; message?: string };
  serviceName: string;
}

export interface ReceivedExport {
  contentType: string | undefined;
  body: Buffer;
  headers: IncomingMessage['headers'];
}

/** What the collector does with an export: take it (200), refuse it (a status), or never answer. */
export type CollectorAnswer = number | 'hang';

type AttributeValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };

/**
 * A small OTLP/HTTP collector on 127.0.0.1, port 0: it keeps every request to /v1/traces (protobuf
 * or JSON) and parses the JSON ones into spans.
 */
export class OtlpReceiver {
  readonly exports: ReceivedExport[] = [];
  answer: CollectorAnswer = 200;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  static async start(): Promise<OtlpReceiver> {
    let receiver: OtlpReceiver | undefined;
    const server = createServer((req, res) => void receiver!.handle(req, res));
    receiver = new OtlpReceiver(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Every span of the JSON exports so far. */
  spans(): ReceivedSpan[] {
    const spans: ReceivedSpan[] = [];
    for (const received of this.exports) {
      if (!received.contentType?.startsWith('application/json')) continue;
      const body = JSON.parse(received.body.toString('utf8')) as {
        resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: AttributeValue }> }; scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }>;
      };
      for (const resource of body.resourceSpans) {
        const serviceName = String(valueOf(resource.resource.attributes.find((attribute) => attribute.key === 'service.name')?.value ?? {}));
        for (const scope of resource.scopeSpans) {
          for (const span of scope.spans) {
            spans.push({
              traceId: span.traceId as string,
              spanId: span.spanId as string,
              ...(span.parentSpanId ? { parentSpanId: span.parentSpanId as string } : {}),
              name: span.name as string,
              kind: span.kind as number,
              attributes: Object.fromEntries(((span.attributes ?? []) as Array<{ key: string; value: AttributeValue }>).map(({ key, value }) => [key, valueOf(value)])),
              links: ((span.links ?? []) as Array<{ traceId: string; spanId: string }>).map(({ traceId, spanId }) => ({ traceId, spanId })),
              ...(span.status ? { status: span.status as { code?: number; message?: string } } : {}),
              serviceName,
            });
          }
        }
      }
    }
    return spans;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.url !== '/v1/traces' || req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    this.exports.push({ contentType: req.headers['content-type'], body: Buffer.concat(chunks), headers: req.headers });
    if (this.answer === 'hang') return;
    res.writeHead(this.answer, { 'content-type': 'application/json' }).end('{}');
  }
}

function valueOf(value: AttributeValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value.boolValue ?? '';
}
