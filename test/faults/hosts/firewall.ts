import { run, runQuietly } from './command.js';
import type { Host, TestNetwork } from './network.js';

/**
 * Partitions as packet drops inside the namespaces, with nftables: each host gets a table of its
 * own (`faults`) whose input and output chains drop what a partition forbids. Healing deletes it.
 */
export type Direction = 'both' | 'from-a' | 'to-a';

/** Drops packets between `a` and `b`: both ways, only those `a` sends to `b` (from-a), or only those `b` sends to `a` (to-a). */
export function cut(a: Host, b: Host, direction: Direction = 'both'): void {
  ensureTable(a);
  if (direction !== 'to-a') nft(a, `add rule inet faults output ip daddr ${b.address} drop`);
  if (direction !== 'from-a') nft(a, `add rule inet faults input ip saddr ${b.address} drop`);
}

/** Cuts `host` off from every other host given. */
export function isolate(host: Host, others: Host[]): void {
  for (const other of others) if (other !== host) cut(host, other);
}

/** Removes every rule a partition added, on every host of the run. */
export function healAll(network: TestNetwork): void {
  for (const host of network.hosts.values()) runQuietly('ip', ['netns', 'exec', host.namespace, 'nft', 'delete', 'table', 'inet', 'faults']);
}

function ensureTable(host: Host): void {
  nft(host, 'add table inet faults');
  nft(host, 'add chain inet faults input { type filter hook input priority 0; policy accept; }');
  nft(host, 'add chain inet faults output { type filter hook output priority 0; policy accept; }');
}

function nft(host: Host, rule: string): void {
  run('ip', ['netns', 'exec', host.namespace, 'nft', rule]);
}
