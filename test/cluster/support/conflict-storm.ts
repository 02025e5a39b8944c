import { request } from '../../helpers/http.js';
import { isAllowedError } from './cluster-service.js';

export interface StormResult {
  /** Per user id, every name an update acknowledged with 200 wrote. */
  acknowledged: Map<number, Set<string>>;
  ok: number;
  failed: number;
  wrong: string[];
}

/** The email an update writes together with `name`, so that a stored pair proves it came from one write. */
export const stormEmail = (name: string): string => `${name}@storm.example`;

/** A storm's result before its first round. */
function stormResult(ids: number[]): StormResult {
  return { acknowledged: new Map(ids.map((id) => [id, new Set<string>()])), ok: 0, failed: 0, wrong: [] };
}

/**
 * `clientsPerService` clients on each service, for `durationMs`, each replacing one of `ids` at
 * random with a name of its own, one request at a time: the same rows written through different
 * nodes at once, which Galera settles by certification (the loser is rolled back). A further round
 * adds to the `result` of the ones before it (`round` keeps its names apart).
 */
export async function conflictStorm(baseUrls: string[], ids: number[], clientsPerService: number, durationMs: number, result = stormResult(ids), round = 0): Promise<StormResult> {
  const endAt = performance.now() + durationMs;
  const client = async (baseUrl: string, name: string): Promise<void> => {
    for (let seq = 0; performance.now() < endAt; seq++) {
      const id = ids[Math.floor(Math.random() * ids.length)]!;
      const value = `${name}-${seq}`;
      try {
        const res = await request(baseUrl, 'PUT', `/api/users/${id}`, { json: { name: value, email: stormEmail(value) } });
        if (res.status === 200) {
          result.ok++;
          result.acknowledged.get(id)!.add(value);
        } else if (isAllowedError(res)) {
          result.failed++;
        } else {
          result.wrong.push(`${res.status} ${res.text}`);
        }
      } catch (error) {
        result.wrong.push(`no answer: ${String(error)}`);
      }
    }
  };
  await Promise.all(
    baseUrls.flatMap((baseUrl, s) => Array.from({ length: clientsPerService }, (_, c) => client(baseUrl, `r${round}s${s}c${c}`))),
  );
  return result;
}
