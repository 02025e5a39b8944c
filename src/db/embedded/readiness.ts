import mysql from 'mysql2';
import { sql } from '../statements.js';

/** A server's socket, or its host and port. */
export type ServerAddress = { socketPath: string } | { host: string; port: number };

/** One connection attempt as root without a password; true when the server answered. */
export function answersAsRoot(address: ServerAddress, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const connection = mysql.createConnection({ ...address, user: 'root', connectTimeout: timeoutMs });
    connection.on('error', () => {});
    connection.query(sql.serverAnswers, (error) => {
      connection.destroy();
      resolve(!error);
    });
  });
}
