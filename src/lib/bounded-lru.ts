import { LRUCache } from 'lru-cache'

export type BoundedLruOptions<K extends {}, V extends {}> = Omit<
  LRUCache.Options<K, V, unknown>,
  'max' | 'maxSize' | 'sizeCalculation' | 'maxEntrySize'
>

// An LRU cache of at most `entries` entries whose memory grows as it fills. Given `max`, lru-cache
// allocates its arrays for every entry when it is made: the invalid-key limiter's 100,000 addresses cost
// each gateway 1.6 MiB of heap and 1.1 MiB of typed arrays at every start, before one address was seen.
// Bounded by `maxSize` with each entry of size 1, it evicts the same entry at the same count (the least
// recently used, once `entries` are held) and its arrays grow with what it holds.
export function boundedLru<K extends {}, V extends {}>(
  entries: number,
  options: BoundedLruOptions<K, V> = {},
): LRUCache<K, V> {
  return new LRUCache<K, V>({ ...options, maxSize: entries, sizeCalculation: () => 1 })
}
