// cluster-key-slot (ioredis's own slot function) ships no types: the one function it exports.
declare module 'cluster-key-slot' {
  // the Redis Cluster slot (0-16383) of a key, from its {hash tag} when it has one
  export default function calculateSlot(key: string | Buffer): number
}
