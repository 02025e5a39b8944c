import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeTcpPort } from './free-ports.js';
import { waitUntil } from './poll-until.js';

/** Debian's nginx binary, or undefined when the package is not installed. */
export const nginxBinary: string | undefined = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'].find(
  (path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
);

export interface NginxOptions {
  /** The port on 127.0.0.1 requests are passed to. */
  upstreamPort: number;
  /** Lines added to the proxying `location /` block (client_max_body_size, proxy_http_version, ...). */
  location: readonly string[];
}

export interface RunningNginx {
  baseUrl: string;
  /** What nginx logged at `warn` and above so far. */
  errorLog(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * A private nginx reverse proxy in front of a port: one foreground process (no daemon, no master)
 * with its configuration, pid file, logs and temporary files in a directory of its own, listening
 * on a free port of 127.0.0.1. A system nginx, if any, is left alone.
 */
export async function startNginx(options: NginxOptions): Promise<RunningNginx> {
  if (!nginxBinary) throw new Error('nginx is not installed');
  const dir = await mkdtemp(join(tmpdir(), 'usvc-nginx-'));
  const port = await freeTcpPort();
  const errorLog = join(dir, 'error.log');
  const conf = join(dir, 'nginx.conf');
  await writeFile(
    conf,
    [
      'daemon off;',
      'master_process off;',
      'worker_processes 1;',
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${errorLog} warn;`,
      'events { worker_connections 64; }',
      'http {',
      `  access_log ${join(dir, 'access.log')};`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(dir, kind)};`),
      '  server {',
      `    listen 127.0.0.1:${port};`,
      '    location / {',
      `      proxy_pass http://127.0.0.1:${options.upstreamPort};`,
      ...options.location.map((line) => `      ${line}`),
      '    }',
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  const child = spawn(nginxBinary, ['-p', `${dir}/`, '-e', errorLog, '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const readLog = (): Promise<string> => readFile(errorLog, 'utf8').catch(() => '');
  const stop = async (): Promise<void> => {
    await stopProcess(child, exited);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntil('nginx to accept connections', async () => {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`nginx exited (${child.exitCode ?? child.signalCode}): ${stderr}${await readLog()}`);
      }
      return accepts(port);
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl: `http://127.0.0.1:${port}`, errorLog: readLog, stop };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function stopProcess(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
