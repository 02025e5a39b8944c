import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run, runQuietly } from './command.js';
import { onCleanup } from './cleanup.js';

/** One test host: a network namespace on the run's bridge, with one address. */
export interface Host {
  /** Its role in the run: n1, n2, n3 for database nodes, s1, s2 for service instances. */
  role: string;
  namespace: string;
  address: string;
}

export interface TestNetwork {
  /** The run's short random suffix: in every name it made, so concurrent runs do not clash. */
  suffix: string;
  /** The host side's address on the bridge. */
  gateway: string;
  hosts: Map<string, Host>;
  host(role: string): Host;
  /** Removes every namespace and the bridge; safe to call more than once. */
  remove(): void;
}

/**
 * A private network for one run: a bridge on the host side (10.231.X.1/24, X random and not in use)
 * and, per role, a namespace joined to it by a veth pair. Names carry a random suffix; everything is
 * registered for clean-up when made, so even a run that fails half-way removes it.
 */
export function makeTestNetwork(roles: string[]): TestNetwork {
  const suffix = randomBytes(3).toString('hex');
  const subnet = freeSubnet();
  const bridge = `fb${suffix}`;
  const hosts = new Map<string, Host>();
  const undos: Array<() => void> = [];
  const remember = (what: string, undo: () => void): void => {
    const forget = onCleanup(what, undo);
    undos.push(() => {
      forget();
      undo();
    });
  };
  const network: TestNetwork = {
    suffix,
    gateway: `${subnet}.1`,
    hosts,
    host(role) {
      const found = hosts.get(role);
      if (!found) throw new Error(`no host ${role}`);
      return found;
    },
    remove() {
      while (undos.length > 0) undos.pop()!();
    },
  };
  try {
    run('ip', ['link', 'add', bridge, 'type', 'bridge']);
    remember(`bridge ${bridge}`, () => runQuietly('ip', ['link', 'delete', bridge]));
    keepOffHostFirewall(bridge);
    run('ip', ['addr', 'add', `${subnet}.1/24`, 'dev', bridge]);
    run('ip', ['link', 'set', bridge, 'up']);
    roles.forEach((role, i) => hosts.set(role, { role, namespace: `fh${suffix}${role}`, address: `${subnet}.${11 + i}` }));
    for (const host of hosts.values()) {
      giveNames(host, [...hosts.values()], remember);
      addHost(host, bridge, `fv${suffix}${host.role}`, remember);
    }
    return network;
  } catch (error) {
    network.remove();
    throw error;
  }
}

/**
 * The bridge carries the run's traffic whatever the host's firewall does with bridged frames: with
 * Docker running, bridged traffic passes iptables' FORWARD chain (bridge-nf-call-iptables=1), whose
 * policy Docker sets to DROP, so the nodes could not reach each other. This bridge alone is taken
 * out of it (nf_call_iptables 0, and the same for ip6tables and arptables); nothing else on the host
 * changes. A kernel that refuses says so, once, and the run goes on.
 */
function keepOffHostFirewall(bridge: string): void {
  try {
    run('ip', ['link', 'set', bridge, 'type', 'bridge', 'nf_call_iptables', '0', 'nf_call_ip6tables', '0', 'nf_call_arptables', '0']);
  } catch (error) {
    console.warn(`# the test bridge ${bridge} could not be taken out of the host firewall (${(error as Error).message.split('\n')[0]}); with Docker running (FORWARD policy DROP) its nodes may not reach each other`);
  }
}

function addHost(host: Host, bridge: string, veth: string, remember: (what: string, undo: () => void) => void): void {
  run('ip', ['netns', 'add', host.namespace]);
  remember(`namespace ${host.namespace}`, () => runQuietly('ip', ['netns', 'delete', host.namespace]));
  run('ip', ['link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', host.namespace]);
  remember(`veth ${veth}`, () => runQuietly('ip', ['link', 'delete', veth]));
  run('ip', ['link', 'set', veth, 'master', bridge, 'up']);
  const inside = (...args: string[]): string => run('ip', ['-n', host.namespace, ...args]);
  inside('addr', 'add', `${host.address}/24`, 'dev', 'eth0');
  inside('link', 'set', 'eth0', 'up');
  inside('link', 'set', 'lo', 'up');
  inside('route', 'add', 'default', 'via', `${host.address.split('.').slice(0, 3).join('.')}.1`);
}

/**
 * `ip netns exec` puts /etc/netns/<name>/* over /etc: every host's name in its hosts file, and no
 * name server, which the namespace could not reach. Without them rsync's daemon (Galera's state
 * transfer) waits 10 s for each reverse lookup of its peer.
 */
function giveNames(host: Host, all: Host[], remember: (what: string, undo: () => void) => void): void {
  const dir = join('/etc/netns', host.namespace);
  mkdirSync(dir, { recursive: true });
  remember(`${dir}`, () => rmSync(dir, { recursive: true, force: true }));
  const names = all.map((other) => `${other.address} ${other.namespace}`).join('\n');
  writeFileSync(join(dir, 'hosts'), `127.0.0.1 localhost\n${names}\n`);
  writeFileSync(join(dir, 'resolv.conf'), 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n');
}

/** 10.231.X with an X no interface of the host uses yet. */
function freeSubnet(): string {
  const used = run('ip', ['-4', '-o', 'addr', 'show']);
  for (let attempt = 0; attempt < 50; attempt++) {
    const candidate = `10.231.${randomBytes(1)[0]!}`;
    if (!used.includes(`${candidate}.`)) return candidate;
  }
  throw new Error('no free 10.231.X.0/24 subnet');
}
