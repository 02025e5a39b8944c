import type { Connection } from 'mysql2';
import type { Logger } from '../log/logger.js';
import { riskySettings } from './durability-settings.js';
import { sql } from './statements.js';

/**
 * Reads a server's durability settings on each new connection (queued ahead of any statement, as the
 * session's own settings are) and logs one warning per risky setting and server: again only if its
 * value changes. A server that refuses the statement is simply not checked.
 */
export class DurabilityCheck {
  private readonly warned = new Set<string>();

  constructor(private readonly logger: Logger) {}

  inspect(connection: Connection, server: string): void {
    connection.query(sql.durabilitySettings, (error, rows) => {
      if (error) return;
      for (const { setting, value, risk } of riskySettings(rows as Array<{ Variable_name: string; Value: string }>)) {
        const seen = `${server} ${setting}=${value}`;
        if (this.warned.has(seen)) continue;
        this.warned.add(seen);
        this.logger.warn('risky database setting', { server, setting, value, risk });
      }
    });
  }
}
