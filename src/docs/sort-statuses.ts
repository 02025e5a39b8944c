/** Responses in status order, as in openapi.json, so the docs page lists them as usual. */
export function sortStatuses(responses: Record<string, unknown>): void {
  const sorted = Object.entries(responses).sort(([a], [b]) => a.localeCompare(b));
  for (const [key] of sorted) delete responses[key];
  for (const [key, value] of sorted) responses[key] = value;
}
