/**
 * The HTTP ceiling: a bare node:http server answering every request with a fixed small JSON body.
 * Prints {"port": n} once it listens; runs until killed.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const body = JSON.stringify({ id: 1, name: 'John Doe', email: 'john@example.com', created_at: '2026-01-01T00:00:00.000Z' });
const headers = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) };

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  req.resume();
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
