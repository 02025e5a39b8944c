import { findClientTools } from '../../src/backup/client-tools.js';

/** Why db:backup and db:restore cannot run here (no mariadb-dump or mysqldump, mariadb or mysql), or undefined when they can. */
export const clientToolsSkipReason: string | undefined = (() => {
  try {
    findClientTools();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
})();
