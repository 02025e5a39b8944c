import mysql from 'mysql2';
import type { Endpoint } from '../db/pool.js';
import { sql } from '../db/statements.js';

/** One connection attempt as root without a password; true when the server answered. */
export function answersAsRoot(address: Endpoint, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const connection = mysql.createConnection({ ...address, user: 'root', connectTimeout: timeoutMs });
    connection.on('error', () => {});
    connection.query(sql.serverAnswers, (error) => {
      connection.destroy();
      resolve(!error);
    });
  });
}
