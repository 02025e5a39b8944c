/**
 * Sets `key` as the newest entry of `map`, which keeps its entries oldest first (a Map iterates in
 * insertion order): an existing key moves to the end; a new one, with `max` entries already held,
 * first pushes out the oldest. So a flood of distinct keys can never hold more than `max`.
 */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  if (!map.delete(key) && map.size >= max) map.delete(map.keys().next().value!);
  map.set(key, value);
}
