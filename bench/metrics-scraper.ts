import { progress } from './report.js';

const SCRAPE_INTERVAL_MS = 1000;

/**
 * Scrapes `/metrics` once a second (a Prometheus default is every 15 s) until `work` settles, to
 * show what scraping costs the API; scrapes that do not answer 200 are reported.
 */
export async function scrapeWhile<T>(baseUrl: string, work: Promise<T>): Promise<T> {
  let scrapes = 0;
  let failures = 0;
  const timer = setInterval(() => {
    fetch(`${baseUrl}/metrics`).then(
      async (res) => {
        await res.arrayBuffer();
        if (res.status === 200) scrapes++;
        else failures++;
      },
      () => failures++,
    );
  }, SCRAPE_INTERVAL_MS);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    progress(`  /metrics scraped ${scrapes} times${failures > 0 ? `, ${failures} failed` : ''}`);
  }
}
