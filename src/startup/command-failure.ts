import { BackupError } from '../backup/backup-error.js';
import { ConfigError } from '../config/environment.js';
import { isAccessDenied } from '../db/mysql-errors.js';
import { EmbeddedServerError } from '../embedded-db/index.js';
import { WebhookToolError } from '../events/webhooks/operator.js';
import { UnusableSchemaError } from './unusable-schema.js';

/** The one line a database command (`db:init`, `db:migrate`, `db:backup`, `db:restore`, `webhooks`) prints when it fails; sets exit code 1. */
export function reportCommandFailure(command: string, error: unknown): void {
  const reason =
    error instanceof ConfigError
      ? `Invalid configuration: ${error.message}`
      : error instanceof EmbeddedServerError || error instanceof UnusableSchemaError || error instanceof BackupError || error instanceof WebhookToolError
        ? error.message
        : isAccessDenied(error)
          ? `the database refused the credentials (check DB_USER and DB_PASSWORD): ${(error as Error).message}`
          : String(error);
  console.error(`${command} failed: ${reason}`);
  process.exitCode = 1;
}
