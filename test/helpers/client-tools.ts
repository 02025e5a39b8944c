import { findClientTools } from '../../src/backup/client-tools.js';
import { skipReasonOf } from './skip-reason.js';

/** Why db:backup and db:restore cannot run here (no mariadb-dump or mysqldump, mariadb or mysql), or undefined when they can. */
export const clientToolsSkipReason: string | undefined = skipReasonOf(() => findClientTools());
