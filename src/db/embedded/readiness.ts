import mysql from 'mysql2';
import { sql } from '../statements.js';

/** One connection attempt as root without a password on the socket; true when the server answered. */
export function answers(socketPath: string, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const connection = mysql.createConnection({ socketPath, user: 'root', connectTimeout: timeoutMs });
    connection.on('error', () => {});
    connection.query(sql.serverAnswers, (error) => {
      connection.destroy();
      resolve(!error);
    });
  });
}
