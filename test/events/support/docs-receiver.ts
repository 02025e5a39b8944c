import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../src/paths.js';
import { childEnv } from '../../helpers/run-script.js';
import { pollUntil } from '../../helpers/poll-until.js';

/** One section of a markdown file of the project: from its `## ` heading to the next. */
export function sectionOf(file: string, heading: string): string {
  const text = readFileSync(join(projectRoot, file), 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`${file} has no section "## ${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** The fenced `js` blocks of that section, exactly as printed. */
export function codeBlocksOf(file: string, heading: string): string[] {
  return [...sectionOf(file, heading).matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/**
 * A receiver as the docs print it, run by Node as a module (`node --input-type=module --eval`, in
 * the project's folder, so that `standardwebhooks` resolves as it would after `npm install`), with
 * PORT=0 and the secret; its stdout kept line by line.
 */
export class DocsReceiver {
  readonly lines: string[] = [];
  stderr = '';
  private readonly child: ChildProcess;

  private constructor(code: string, secret: string) {
    this.child = spawn(process.execPath, ['--input-type=module', '--eval', code], {
      cwd: projectRoot,
      env: childEnv({ PORT: '0', WEBHOOK_SECRET: secret }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let partial = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop()!;
      this.lines.push(...parts);
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  /** Started, and listening: its `listening on <port>` line read. */
  static async start(code: string, secret: string): Promise<{ receiver: DocsReceiver; url: string }> {
    const receiver = new DocsReceiver(code, secret);
    const port = await pollUntil(`the receiver to listen (stderr: ${receiver.stderr})`, () => {
      if (receiver.child.exitCode !== null) throw new Error(`the receiver exited: ${receiver.stderr}`);
      const line = receiver.lines.find((one) => one.startsWith('listening on '));
      return line === undefined ? undefined : Number(line.slice('listening on '.length));
    }, { timeoutMs: 20_000 });
    return { receiver, url: `http://127.0.0.1:${port}/hooks` };
  }

  /** The `verified <webhook-id> <type> <user id>` lines it printed. */
  verified(): string[] {
    return this.lines.filter((line) => line.startsWith('verified '));
  }

  stop(): void {
    this.child.kill();
  }
}
