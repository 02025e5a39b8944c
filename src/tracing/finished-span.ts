import type { SpanContext } from './trace-context.js';

export type SpanKindName = 'server' | 'client';
export type AttributeValue = string | number | boolean;

/**
 * The attribute names one kind of span carries, in order: a constant, declared once where such
 * spans are made. The exporter's thread is told each list once and then only the values.
 */
export type AttributeNames = readonly string[];

/** One finished span to export: ours, with its ids already handed out (the traceparent the client saw). */
export interface FinishedSpan {
  span: SpanContext;
  name: string;
  kind: SpanKindName;
  startMs: number;
  endMs: number;
  names: AttributeNames;
  /** One value per name, in the same order; undefined leaves that attribute out. */
  values: ReadonlyArray<AttributeValue | undefined>;
  /** Other spans it served (a batched statement: every request in the batch). */
  links?: readonly SpanContext[];
  /** Set for a failure (a 5xx, a statement's error, a failed attempt). */
  error?: string;
}

/** A span's attributes by name, the ones left out omitted; its values start at `from` in `values`. */
export function attributesOf({ names, values }: Pick<FinishedSpan, 'names' | 'values'>, from = 0): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (let i = 0; i < names.length; i++) {
    const value = values[from + i];
    if (value !== undefined) attributes[names[i]!] = value;
  }
  return attributes;
}
