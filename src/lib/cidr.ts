import { BlockList, isIP } from 'node:net'

// Validates CIDR strings (IPv4 and IPv6, bare addresses allowed) and builds a matcher.
export function parseCidr(
  text: string,
): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText] = text.split('/')
  const version = isIP(address)
  if (version === 0) return undefined
  const max = version === 4 ? 32 : 128
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined
  const prefix = prefixText === undefined ? max : Number(prefixText)
  if (prefix > max) return undefined
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' }
}

export function cidrMatcher(cidrs: readonly string[]): (ip: string) => boolean {
  const list = new BlockList()
  for (const c of cidrs) {
    const p = parseCidr(c)
    if (p) list.addSubnet(p.address, p.prefix, p.family)
  }
  return function matchesAllowlist(ip) {
    const mapped = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip
    const version = isIP(mapped)
    if (version === 0) return false
    return list.check(mapped, version === 4 ? 'ipv4' : 'ipv6')
  }
}
