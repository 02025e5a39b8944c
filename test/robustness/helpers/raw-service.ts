import { createApp } from '../../../src/app.js';
import { serverLimits, type ServerLimits } from '../../../src/http/server.js';
import { createLogger } from '../../../src/log.js';
import { createTestDatabase } from '../../helpers/database.js';
import { TEST_PASSWORD, type RunningService } from '../../helpers/service.js';

/**
 * The real service, like test/helpers/service.ts starts it, but with some HTTP limits replaced:
 * the timeout tests use timeouts of a second or two instead of the production ones.
 */
export async function startServiceWithLimits(label: string, limits: Partial<ServerLimits>): Promise<RunningService> {
  const db = await createTestDatabase(label);
  const logs: string[] = [];
  const app = createApp({
    db: db.config,
    accessPassword: TEST_PASSWORD,
    logger: createLogger((line) => logs.push(line)),
    schemaRetryMs: 200,
    serverLimits: { ...serverLimits, ...limits },
  });
  const address = await app.listen(0, '127.0.0.1');
  await app.prepareSchema();
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    app,
    db,
    logs,
    async close() {
      await app.close(2000);
      await db.drop();
    },
  };
}
