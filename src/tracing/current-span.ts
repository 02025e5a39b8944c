import { AsyncLocalStorage } from 'node:async_hooks';
import type { SpanContext } from './trace-context.js';

/** The spans work is done for: the request's own, or those of every request a batched statement serves (the first is the parent). */
export interface SpanScope {
  readonly parent: SpanContext;
  readonly links: readonly SpanContext[];
}

/**
 * Which request's span the work in progress belongs to, so that a database statement's span finds
 * its parent. Kept only while spans are exported: AsyncLocalStorage costs every request otherwise.
 */
let storage: AsyncLocalStorage<SpanScope> | undefined;

export function trackSpans(on: boolean): void {
  storage = on ? (storage ?? new AsyncLocalStorage<SpanScope>()) : undefined;
}

export function spansTracked(): boolean {
  return storage !== undefined;
}

/** Runs `work` as part of `span` (when spans are tracked). */
export function withinSpan<T>(span: SpanContext, work: () => T): T {
  return storage === undefined || !span.sampled ? work() : storage.run({ parent: span, links: [] }, work);
}

/** The scope of the work in progress; undefined when spans are not tracked or nothing sampled is running. */
export function currentScope(): SpanScope | undefined {
  return storage?.getStore();
}

/** Runs a batch's work as part of every span its items were submitted in. */
export function withinSpans<T>(spans: ReadonlyArray<SpanContext | undefined>, work: () => T): T {
  if (storage === undefined) return work();
  const sampled = spans.filter((span): span is SpanContext => span !== undefined && span.sampled);
  if (sampled.length === 0) return storage.exit(work);
  return storage.run({ parent: sampled[0]!, links: sampled.length > 1 ? sampled : [] }, work);
}

/** The request span of the work in progress, for a batch item to remember. */
export function currentSpan(): SpanContext | undefined {
  return storage?.getStore()?.parent;
}
