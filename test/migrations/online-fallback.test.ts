import assert from 'node:assert/strict';
import { test } from 'node:test';
import mysql from 'mysql2/promise';
import { createTestDatabase, testServer } from '../helpers/database.js';
import { startService } from '../helpers/service.js';
import { logged, migrationRecords, MIGRATION_INDEXES, userIndexes } from './support/schema-state.js';

test('a table that cannot be indexed online (MyISAM) gets each index the server\'s own way, with a warning per index giving the server\'s reason', async () => {
  const db = await createTestDatabase('mig_myisam');
  const admin = await mysql.createConnection(testServer);
  try {
    await admin.query(`CREATE DATABASE \`${db.config.database}\` CHARACTER SET utf8mb4`);
    await admin.query(
      `CREATE TABLE \`${db.config.database}\`.users (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(100) NOT NULL,
         email VARCHAR(100) NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP) ENGINE=MyISAM DEFAULT CHARSET=utf8mb4`,
    );
    const service = await startService('mig_myisam', { db });
    await service.close();
    const refused = logged(service.logs, "online index build refused by the server: building it with the server's own algorithm, which may block writes");
    assert.deepEqual(refused.map((line) => line.index).sort(), MIGRATION_INDEXES);
    for (const line of refused) assert.match(String(line.reason), /ALGORITHM=INPLACE is not supported/);
    assert.deepEqual(await userIndexes(db), ['PRIMARY', ...MIGRATION_INDEXES]);
    assert.deepEqual((await migrationRecords(db)).map((record) => record.version), [1, 2, 3]);
  } finally {
    await admin.end();
    await db.drop();
  }
});
