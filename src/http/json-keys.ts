export type RefusedKey = 'duplicate' | 'forbidden';

/** Keys through which a careless merge could reach Object.prototype. */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Why a JSON text's object keys are refused, or undefined when they are fine: a key repeated within
 * one object (parsers disagree on which copy wins, so a proxy and this service could read different
 * values) or a prototype key. The text must already be valid JSON.
 */
export function refusedKey(text: string): RefusedKey | undefined {
  // One entry per open object or array: the keys seen so far, or null inside an array.
  const open: Array<Set<string> | null> = [];
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x7b /* { */) open.push(new Set());
    else if (code === 0x5b /* [ */) open.push(null);
    else if (code === 0x7d /* } */ || code === 0x5d /* ] */) open.pop();
    else if (code === 0x22 /* " */) {
      const end = closingQuote(text, i);
      const keys = open[open.length - 1];
      if (keys && nextSignificant(text, end + 1) === 0x3a /* : */) {
        const raw = text.slice(i, end + 1);
        const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (FORBIDDEN_KEYS.has(key)) return 'forbidden';
        if (keys.has(key)) return 'duplicate';
        keys.add(key);
      }
      i = end;
    }
    i++;
  }
  return undefined;
}

/** The index of the quote that ends the string starting at `start`; jumps from quote to quote for speed. */
function closingQuote(text: string, start: number): number {
  let quote = text.indexOf('"', start + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c /* \ */) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

function nextSignificant(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return code;
  }
  return -1;
}
