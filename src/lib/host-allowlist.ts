import { isIP } from 'node:net'
import { cidrMatcher, parseCidr } from './cidr.ts'
import { HEADER_BOUNDS } from './header-bounds.ts'

interface ParsedHost {
  // lower-case name or IP address (IPv6 without brackets)
  name: string
  port: string | undefined
}

// "name", "name:port", "1.2.3.4:80", "[::1]:9464" → name and port; undefined when it is no host at all
export function parseHost(text: string): ParsedHost | undefined {
  // longer than a DNS name and a port: no host (not parsed)
  if (text.length > HEADER_BOUNDS.host.bytes) return undefined
  const v = text.trim().toLowerCase()
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(v)
  if (bracketed) return isIP(bracketed[1]!) === 6 ? { name: bracketed[1]!, port: bracketed[2] } : undefined
  const plain = /^([a-z0-9._-]+)(?::(\d{1,5}))?$/.exec(v)
  return plain ? { name: plain[1]!, port: plain[2] } : undefined
}

export interface HostAllowlist {
  allows(host: string | undefined): boolean
}

// Entries: a host name or IP address, optionally with a port (then only that port matches), or a CIDR
// block, which matches a Host that is an IP address inside it (the address Prometheus scrapes a target
// by). An IP-literal Host is no DNS-rebinding vector: rebinding needs the attacker's own name in Host.
export function hostAllowlist(entries: readonly string[]): HostAllowlist {
  const names = new Map<string, Set<string> | 'any'>()
  const cidrs: string[] = []
  for (const entry of entries) {
    if (entry.includes('/')) {
      if (!parseCidr(entry)) throw new Error(`not a CIDR block: ${entry}`)
      cidrs.push(entry)
      continue
    }
    const parsed = parseHost(entry)
    if (!parsed) throw new Error(`not a host name or address: ${entry}`)
    const ports = names.get(parsed.name)
    if (parsed.port === undefined) names.set(parsed.name, 'any')
    else if (ports !== 'any') names.set(parsed.name, new Set([...(ports ?? []), parsed.port]))
  }
  const inBlock = cidrMatcher(cidrs)
  return {
    allows(host) {
      const parsed = host === undefined ? undefined : parseHost(host)
      if (!parsed) return false
      const ports = names.get(parsed.name)
      if (ports === 'any' || (ports && parsed.port !== undefined && ports.has(parsed.port))) return true
      return cidrs.length > 0 && isIP(parsed.name) !== 0 && inBlock(parsed.name)
    },
  }
}
