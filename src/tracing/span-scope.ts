import type { SpanContext } from './trace-context.js';

/**
 * The request spans a database operation serves, so that its statements' spans find their parent:
 * the first sampled request is the parent, and a batch serving several is linked to each. Carried
 * by the operation's Deadline from the request to the statement, explicitly: AsyncLocalStorage
 * would do it implicitly, at a cost to every request (its promise hooks took a fifth of get-one's
 * throughput here on Node 20).
 */
export interface SpanScope {
  readonly parent: SpanContext;
  readonly links: readonly SpanContext[];
}

/** The scope of an operation asked for by these requests' spans; undefined when none of them is sampled. */
export function scopeOf(spans: ReadonlyArray<SpanContext | undefined>): SpanScope | undefined {
  let first: SpanContext | undefined;
  let sampled: SpanContext[] | undefined;
  for (const span of spans) {
    if (span === undefined || !span.sampled) continue;
    if (first === undefined) first = span;
    else (sampled ??= [first]).push(span);
  }
  return first === undefined ? undefined : { parent: first, links: sampled ?? [] };
}
