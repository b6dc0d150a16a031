// TRUST_PROXY (src/config.ts) as Fastify's trustProxy. A hop count becomes a function of the hop index
// (0 is the socket's peer): Fastify 5 takes a bare number as "trust nothing". With a hop count the
// gateway must be reachable only through those proxies; the address list is the stricter choice.
export function trustProxyOption(
  setting: false | number | string[],
): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting
  const hops = setting
  return function trustLastHops(_address, hop) {
    return hop < hops
  }
}
