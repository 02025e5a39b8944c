import { createServer, type Server } from 'node:http';

/** A local OTLP/HTTP endpoint that takes every export and counts them. */
export async function startCollector(): Promise<{ server: Server; url: string; exports(): number }> {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}`, exports: () => count };
}
