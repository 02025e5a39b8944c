import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { GALERA_PROVIDER } from '../../helpers/galera/galera-node.js';

/**
 * Why fault runs cannot happen here, or undefined when they can: they need root, `ip` and `nft`,
 * the Galera provider and rsync, and a network namespace actually made (a container without
 * CAP_SYS_ADMIN has `ip` but cannot use it).
 */
export function whyNamespacesUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces exist only on Linux';
  if (process.getuid?.() !== 0) return 'making network namespaces needs root';
  for (const tool of ['ip', 'nft', 'rsync']) {
    if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).error) return `\`${tool}\` is not installed (apt-get install iproute2 nftables rsync)`;
  }
  if (!existsSync(GALERA_PROVIDER)) return `the Galera provider ${GALERA_PROVIDER} is missing (apt-get install galera-4)`;
  const probe = `fp-${randomBytes(3).toString('hex')}`;
  const made = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (made.status !== 0) return `\`ip netns add\` failed: ${made.stderr.trim()}`;
  spawnSync('ip', ['netns', 'delete', probe], { stdio: 'ignore' });
  return undefined;
}
