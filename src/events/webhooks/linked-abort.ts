/**
 * An AbortController that also aborts when `parent` does, until disposed. (AbortSignal.any would
 * do, but its links to a long-lived parent have leaked in Node 20 releases; this one is removed.)
 */
export function linkedAbort(parent: AbortSignal): { controller: AbortController; dispose(): void } {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return { controller, dispose: () => parent.removeEventListener('abort', onAbort) };
}
