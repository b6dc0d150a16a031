import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { cronParse } from '../../../src/ops/cron/op.ts'
import { timestamp } from '../../../src/ops/time/timestamp.ts'
import { primaryZoneName, resolveTimeZone } from '../../../src/ops/time/zone.ts'

const cronZone = (timezone: string) => cronParse({ expression: '0 0 * * *', timezone, count: 1 }).timezone
const timeZone = (timezone: string) => timestamp({ value: 0, timezone }).timezone

// Issue 15, item 6: one answer for a zone in every family, its IANA primary name, never a backward link.
describe('zone names', () => {
  it.each([
    ['Asia/Kolkata', 'Asia/Kolkata'],
    ['Asia/Calcutta', 'Asia/Kolkata'],
    ['asia/kolkata', 'Asia/Kolkata'],
    ['Europe/Kyiv', 'Europe/Kyiv'],
    ['Europe/Kiev', 'Europe/Kyiv'],
    ['Europe/Uzhgorod', 'Europe/Kyiv'],
    ['America/Nuuk', 'America/Nuuk'],
    ['America/Godthab', 'America/Nuuk'],
    ['Pacific/Kanton', 'Pacific/Kanton'],
    ['Asia/Saigon', 'Asia/Ho_Chi_Minh'],
    ['America/Buenos_Aires', 'America/Argentina/Buenos_Aires'],
    ['US/Eastern', 'America/New_York'],
    ['america/new_york', 'America/New_York'],
    ['Europe/Bratislava', 'Europe/Bratislava'],
    ['UTC', 'UTC'],
    ['Etc/UTC', 'UTC'],
    ['utc', 'UTC'],
  ])('%s → %s in /v1/time and /v1/cron alike', (given, primary) => {
    expect(timeZone(given)).toBe(primary)
    expect(cronZone(given)).toBe(primary)
  })

  it('keeps offsets as offsets', () => {
    expect(resolveTimeZone('-0800')).toBe('-08:00')
  })

  // The tz database of this machine (Debian's tzdata) is the reference: every name Intl answers is a
  // Zone there, or a Link that zone.tab lists for its own country (Europe/Bratislava), never a renamed one.
  const zi = '/usr/share/zoneinfo/tzdata.zi'
  const tab = '/usr/share/zoneinfo/zone.tab'
  it.skipIf(!existsSync(zi) || !existsSync(tab))('answers only primary names for all of Intl’s zones', () => {
    const lines = readFileSync(zi, 'utf8').split('\n')
    const zones = new Set(lines.filter((l) => l.startsWith('Z ')).map((l) => l.split(' ')[1]!))
    const countries = new Set(
      readFileSync(tab, 'utf8')
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .map((l) => l.split('\t')[2]!),
    )
    const links = new Map(
      lines.filter((l) => l.startsWith('L ')).map((l) => [l.split(' ')[2]!, l.split(' ')[1]!] as const),
    )
    for (const id of Intl.supportedValuesOf('timeZone')) {
      const name = primaryZoneName(id)
      if (name === 'UTC') continue
      expect(zones.has(name) || countries.has(name), `${id} → ${name}`).toBe(true)
      // a rename keeps the zone: the same rules as the tz database's target of the old name
      if (name !== id) expect(links.get(id) === name || zones.has(name), id).toBe(true)
    }
  })
})
