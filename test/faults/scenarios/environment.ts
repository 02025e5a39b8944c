import { startHostCluster, type HostCluster } from '../cluster/host-cluster.js';
import { cleanUpEverything } from '../hosts/cleanup.js';
import { makeTestNetwork, type TestNetwork } from '../hosts/network.js';
import { startHostService, type HostService } from '../hosts/service-host.js';

/** Everything a fault run acts on: the test network, three Galera nodes, two service instances. */
export interface FaultEnvironment {
  network: TestNetwork;
  cluster: HostCluster;
  /** Instance 1 uses node 1 first (n1,n2,n3), instance 2 node 3 (n3,n1,n2). */
  services: HostService[];
  database: string;
  stop(): Promise<void>;
}

export const NODE_ROLES = ['n1', 'n2', 'n3'];
export const SERVICE_ROLES = ['s1', 's2'];
const SERVICE_ORDERS = [
  [0, 1, 2],
  [2, 0, 1],
];

export async function startEnvironment(log: (line: string) => void): Promise<FaultEnvironment> {
  const network = makeTestNetwork([...NODE_ROLES, ...SERVICE_ROLES]);
  const services: HostService[] = [];
  let cluster: HostCluster | undefined;
  const stop = async (): Promise<void> => {
    await Promise.all(services.map((service) => service.stop()));
    await cluster?.stop();
    network.remove();
    cleanUpEverything();
  };
  try {
    const started = Date.now();
    cluster = await startHostCluster(NODE_ROLES.map((role) => network.host(role)));
    log(`# 3 Galera nodes in namespaces fh${network.suffix}n1-n3 Synced in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const database = `usvc_faults_${network.suffix}`;
    for (const [i, role] of SERVICE_ROLES.entries()) {
      // The limits are shared (a host list's default), counted on every request but never reached: the runs check that each instance rejoins the shared count after the heal.
      const env = { DB_HOST: cluster.hostList(SERVICE_ORDERS[i]!), DB_NAME: database, EVENTS: 'on', WORKERS: '1', DB_POOL_SIZE: '8', LOG_FORMAT: 'json', METRICS: 'on', RATE_LIMIT: '1000000/10s' };
      services.push(await startHostService(network.host(role), env));
    }
    return { network, cluster, services, database, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
