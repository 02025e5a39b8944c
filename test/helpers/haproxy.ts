import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeTcpPort } from './free-ports.js';
import { pollUntil } from './poll-until.js';

/**
 * A private HAProxy in front of child services (child-service.ts), configured as an operator puts
 * one in front of several instances: health checks on `/readyz`, keep-alive to the servers, retries
 * and redispatch. For tests of what a load balancer sees while an instance stops.
 */

/** The haproxy binary (Debian's package puts it in /usr/sbin), or undefined when it is not installed. */
export function haproxyBinary(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin'];
  return dirs.filter((dir) => dir !== '').map((dir) => join(dir, 'haproxy')).find((path) => existsSync(path));
}

export interface Backend {
  name: string;
  port: number;
}

export interface RunningHaproxy {
  baseUrl: string;
  /** What HAProxy logged: server state changes and failed requests only (`option dontlog-normal`). */
  log(): string;
  stop(): Promise<void>;
}

/** The configuration: checks every 200 ms; one failed check takes a server out, one good one puts it back. */
function configFor(port: number, backends: readonly Backend[]): string {
  return [
    'global',
    '  log stdout format raw local0 info',
    'defaults',
    '  mode http',
    '  log global',
    '  option httplog',
    '  option dontlog-normal',
    '  timeout connect 2s',
    // A check may take longer than its 200 ms interval under load: only a refusal or an error takes a server out.
    '  timeout check 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout http-keep-alive 30s',
    '  option http-keep-alive',
    '  retries 3',
    '  option redispatch',
    'frontend api',
    `  bind 127.0.0.1:${port}`,
    '  default_backend instances',
    'backend instances',
    '  balance roundrobin',
    '  http-reuse safe',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    '  default-server inter 200ms fall 1 rise 1',
    ...backends.map((backend) => `  server ${backend.name} 127.0.0.1:${backend.port} check`),
    '',
  ].join('\n');
}

/** Starts HAProxy in the foreground on a free port of 127.0.0.1; resolves once `/readyz` answers 200 through it. */
export async function startHaproxy(binary: string, backends: readonly Backend[]): Promise<RunningHaproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'haproxy-'));
  const port = await freeTcpPort();
  const configFile = join(dir, 'haproxy.cfg');
  writeFileSync(configFile, configFor(port, backends));
  const child: ChildProcess = spawn(binary, ['-db', '-f', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await pollUntil('HAProxy to answer /readyz with 200', async () => {
      if (child.exitCode !== null) throw new Error(`haproxy exited: ${output}`);
      const res = await fetch(`${baseUrl}/readyz`).catch(() => undefined);
      await res?.body?.cancel();
      return res?.status === 200 ? true : undefined;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, log: () => output, stop };
}
