import mysql, { type Connection } from 'mysql2/promise';
import type { Endpoint } from '../config/environment.js';
import { sql } from '../db/statements.js';

/** One connection attempt as root without a password; true when the server answered. */
export async function answersAsRoot(address: Endpoint, timeoutMs = 2000): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await mysql.createConnection({ ...address, user: 'root', connectTimeout: timeoutMs });
    connection.on('error', () => {});
    await connection.query(sql.serverAnswers);
    return true;
  } catch {
    return false;
  } finally {
    connection?.destroy();
  }
}
