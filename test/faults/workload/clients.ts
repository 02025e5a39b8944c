import { chooseKind, runOperation, type WorkloadContext } from './operations.js';

/** `clients` loops of one request after another, until `stop` resolves; resolves once every loop has ended. */
export async function runClients(ctx: WorkloadContext, clients: number, stop: Promise<void>): Promise<void> {
  let stopping = false;
  void stop.then(() => (stopping = true));
  const loop = async (): Promise<void> => {
    while (!stopping) await runOperation(ctx, chooseKind(ctx.random));
  };
  await Promise.all(Array.from({ length: clients }, loop));
}
