import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { ExportBatching } from '../../config/tracing-settings.js';

/**
 * Ended spans, sent to the exporter in batches, one request at a time. Nothing here ever waits on
 * the collector: a queue that is full drops the span, and a batch the collector refused, or did not
 * answer within the exporter's timeout, is dropped too; `dropped` counts both, with the reason.
 */
export class ExportQueue {
  private queued: ReadableSpan[] = [];
  private sending: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly exporter: SpanExporter,
    private readonly dropped: (count: number, reason: string) => void,
    private readonly exported: (count: number) => void,
    private readonly limits: ExportBatching,
  ) {}

  add(span: ReadableSpan): void {
    if (this.queued.length >= this.limits.maxQueued) return this.dropped(1, 'export queue full');
    this.queued.push(span);
    if (this.queued.length >= this.limits.batchSize) this.sendNext();
    else this.timer ??= setTimeout(() => this.sendNext(), this.limits.delayMs).unref();
  }

  /** Sends every span queued so far (one batch after another); resolves once each was answered or failed. */
  async forceFlush(): Promise<void> {
    while (this.queued.length > 0 || this.sending) {
      if (this.sending) await this.sending;
      else this.sendNext();
    }
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
    await this.exporter.shutdown();
  }

  private sendNext(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.sending || this.queued.length === 0) return;
    const batch = this.queued.slice(0, this.limits.batchSize);
    this.queued = this.queued.slice(batch.length);
    this.sending = new Promise<void>((resolve) => {
      this.exporter.export(batch, (result) => {
        if (result.code === 0) this.exported(batch.length);
        else this.dropped(batch.length, result.error?.message ?? 'the collector refused them');
        resolve();
      });
    }).finally(() => {
      this.sending = undefined;
      if (this.queued.length >= this.limits.batchSize) this.sendNext();
      else if (this.queued.length > 0) this.timer ??= setTimeout(() => this.sendNext(), this.limits.delayMs).unref();
    });
  }
}
