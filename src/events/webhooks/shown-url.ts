/**
 * An endpoint as logs, metrics and `npm run webhooks` show it: its URL without the query (or
 * fragment), which may carry a token. A URL that does not parse (never stored by the service) is
 * shown up to its first `?` or `#`.
 */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url.split(/[?#]/)[0]!;
  }
}
