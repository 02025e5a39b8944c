import { sql } from '../db/statements.js';
import type { BuildProgress } from './online-index.js';
import type { SchemaObserver } from './schema-session.js';

/** How often a build is looked at. */
const EVERY_MS = 1000;

/**
 * `npm run db:migrate`'s view of an index build: a line as it begins, then about once a second one with the index, the
 * table's rows (the server's estimate), how far the build is where the server says (MariaDB's
 * PROCESSLIST.PROGRESS), and the time so far; read on a second connection, so the build itself is
 * untouched. Watching that fails (MySQL, a connection refused) prints what it can, never fails the build.
 */
export function printBuildProgress(database: string, write: (line: string) => void): BuildProgress {
  return (index, session, startedAt) => {
    write(`building ${index} online`);
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let observed: SchemaObserver | undefined;
    const watching = session.observer().then(async (observer) => {
      observed = observer;
      if (stopped) return;
      const [estimate] = await observer.query<Array<{ n: unknown }>>(sql.usersRowEstimate, [database]).catch(() => []);
      const rows = estimate?.n === null || estimate?.n === undefined ? undefined : Number(estimate.n);
      const look = async (): Promise<void> => {
        if (stopped) return;
        const [found] = await observer.query<Array<{ progress: unknown }>>(sql.alterProgress, [session.connectionId]).catch(() => []);
        // InnoDB's in-place builds report 0 throughout on MariaDB 10.11: shown only once the server says more.
        const percent = Number(found?.progress ?? 0) > 0 ? Number(found!.progress) : undefined;
        const elapsed = ((performance.now() - startedAt) / 1000).toFixed(1);
        write(
          `building ${index}: ${rows === undefined ? 'rows unknown' : `about ${rows} rows`}` +
            `${percent === undefined ? '' : `, ${percent.toFixed(1)}% done`}, ${elapsed} s so far`,
        );
        timer = setTimeout(() => void look(), EVERY_MS);
      };
      timer = setTimeout(() => void look(), EVERY_MS);
    }, () => undefined);
    return () => {
      stopped = true;
      clearTimeout(timer);
      void watching.then(() => observed?.close());
    };
  };
}
