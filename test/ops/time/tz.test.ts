import { execFileSync } from 'node:child_process'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { timestamp } from '../../../src/ops/time/timestamp.ts'

// The host's TZ must never leak into answers. V8 reads TZ when a process starts (later changes to
// process.env.TZ are honoured only partly and would also affect every other test in this worker), so
// the op runs again in fresh child processes with a different TZ each, and must answer byte for byte
// what it answers here. The child also reports its local offset, to prove the TZ really took effect.

const NOW = Date.UTC(2024, 2, 10, 12, 0, 0)
const CASES = [
  { value: 1700000000 },
  { value: '2024-03-10T02:30:00', timezone: 'America/New_York' },
  { value: '2024-11-03T01:30:00', timezone: 'America/New_York' },
  { value: '2024-03-10', timezone: 'Asia/Kolkata' },
  { value: '2024-03-10T12:00:00' },
  { value: '2024-03-10' },
  { value: 'Tue, 1 Jul 2003 10:52:37 +0200', timezone: 'Europe/Paris' },
  { value: '2024-12-31T23:30:00Z', at: '2024-12-31' },
  { value: '1800-01-01T00:00:00Z', timezone: 'America/New_York' },
  { value: '-1.5' },
  {},
]

const MODULE = pathToFileURL(resolve(import.meta.dirname, '../../../src/ops/time/timestamp.ts')).href
const SCRIPT = `
import { timestamp } from ${JSON.stringify(MODULE)}
const cases = JSON.parse(process.argv[1])
const answers = cases.map((c) => timestamp(c, ${NOW}))
process.stdout.write(JSON.stringify({ localOffset: new Date(${NOW}).getTimezoneOffset(), answers }))
`

function runWithTz(tz: string): { localOffset: number; answers: unknown[] } {
  const out = execFileSync(
    process.execPath,
    ['--no-warnings', '--input-type=module', '-e', SCRIPT, JSON.stringify(CASES)],
    { env: { ...process.env, TZ: tz }, encoding: 'utf8', timeout: 20_000 },
  )
  return JSON.parse(out)
}

describe('time: the host time zone never leaks in', () => {
  const here = CASES.map((c) => timestamp(c, NOW))

  it('answers with UTC semantics here (independent of this host)', () => {
    expect(here[4]).toMatchObject({
      iso8601: '2024-03-10T12:00:00.000Z',
      rfc3339_local: '2024-03-10T12:00:00+00:00',
    })
    expect(here[5]).toMatchObject({ iso8601: '2024-03-10T00:00:00.000Z', day_of_week: 'Sunday' })
  })

  it.each([
    ['America/New_York', 240],
    ['Asia/Kolkata', -330],
    ['Pacific/Chatham', -825],
  ])('gives the same answers under TZ=%s', (tz, localOffset) => {
    const child = runWithTz(tz)
    expect(child.localOffset).toBe(localOffset)
    expect(child.answers).toEqual(here)
  })
})
