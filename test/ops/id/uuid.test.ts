import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { generateUuids, NAMESPACES } from '../../../src/ops/id/uuid.ts'
import { inspectUuid } from '../../../src/ops/id/uuid-inspect.ts'
import { parseUuid } from '../../../src/ops/id/uuid-parse.ts'

const STANDARD = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

function fails(fn: () => unknown, code: string, details: Record<string, unknown> = {}) {
  expect(fn).toThrowError(expect.objectContaining({ code, details: expect.objectContaining(details) }))
}

describe('uuid: RFC 9562 Appendix A vectors', () => {
  it('v3 (A.2): DNS namespace, "www.example.com"', () => {
    expect(generateUuids({ version: 3, namespace: 'dns', name: 'www.example.com' }).uuids).toEqual([
      '5df41881-3aed-3515-88a7-2f4a814cf09e',
    ])
  })

  it('v5 (A.4): DNS namespace, "www.example.com", given as a UUID or a name in any case', () => {
    for (const namespace of ['dns', 'DNS', NAMESPACES.dns, `{${NAMESPACES.dns.toUpperCase()}}`]) {
      expect(generateUuids({ version: 5, namespace, name: 'www.example.com' }).uuids).toEqual([
        '2ed6657d-e927-568b-95e1-2665a8aea6a2',
      ])
    }
  })

  it('v1 (A.1) decodes to 2022-02-22T19:22:22Z with its clock sequence and node', () => {
    expect(inspectUuid({ uuid: 'C232AB00-9414-11EC-B3C8-9F6BDECED846' })).toEqual({
      valid: true,
      normalized: 'c232ab00-9414-11ec-b3c8-9f6bdeced846',
      input_format: 'standard',
      variant: 'rfc9562',
      version: 1,
      special: null,
      description: 'version 1: time-based (Gregorian epoch)',
      timestamp: '2022-02-22T19:22:22.000Z',
      clock_sequence: 0x33c8,
      node: '9f:6b:de:ce:d8:46',
    })
  })

  it('v6 (A.5) decodes to the same instant as its v1 twin', () => {
    expect(inspectUuid({ uuid: '1EC9414C-232A-6B00-B3C8-9F6BDECED846' })).toMatchObject({
      valid: true,
      version: 6,
      timestamp: '2022-02-22T19:22:22.000Z',
      clock_sequence: 0x33c8,
    })
  })

  it('v7 (A.6) decodes its 48-bit Unix ms (Tue Feb 22 2022 14:22:22 GMT-05:00)', () => {
    expect(inspectUuid({ uuid: '017F22E2-79B0-7CC3-98C4-DC0C0C07398F' })).toMatchObject({
      valid: true,
      version: 7,
      variant: 'rfc9562',
      unix_ms: 0x017f22e279b0,
      timestamp: '2022-02-22T19:22:22.000Z',
    })
  })

  it('v4 (A.3) and v5 (A.4) examples are valid and carry no time', () => {
    const v4 = inspectUuid({ uuid: '919108f7-52d1-4320-9bac-f847db4148a8' })
    expect(v4).toMatchObject({ valid: true, version: 4, description: 'version 4: random' })
    expect(v4).not.toHaveProperty('timestamp')
  })
})

describe('uuid: generation', () => {
  it.each([1, 4, 6, 7] as const)('v%i: count, layout, version and variant', (version) => {
    const { uuids } = generateUuids({ version, count: 50 })
    expect(uuids).toHaveLength(50)
    expect(new Set(uuids).size).toBe(50)
    for (const u of uuids) {
      expect(u).toMatch(STANDARD)
      expect(inspectUuid({ uuid: u })).toMatchObject({ valid: true, version, variant: 'rfc9562' })
    }
  })

  it('v7 embeds the current time and v1/v6 decode to it', () => {
    for (const version of [1, 6, 7] as const) {
      const before = Date.now()
      const [u] = generateUuids({ version }).uuids
      const at = Date.parse(inspectUuid({ uuid: u! }).timestamp!)
      expect(at).toBeGreaterThanOrEqual(before - 1)
      expect(at).toBeLessThanOrEqual(Date.now() + 1)
    }
  })

  it('v7s of one request are strictly increasing (1000 of them)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 1000 }), (count) => {
        const { uuids } = generateUuids({ version: 7, count })
        for (let i = 1; i < uuids.length; i++) expect(uuids[i]! > uuids[i - 1]!).toBe(true)
      }),
      { numRuns: 20 },
    )
    const { uuids } = generateUuids({ version: 7, count: 1000 })
    expect([...uuids].sort()).toEqual(uuids)
    expect(new Set(uuids).size).toBe(1000)
  })

  it('formats', () => {
    const [u] = generateUuids({ version: 5, namespace: 'url', name: 'https://example.com/' }).uuids
    // Python's uuid.uuid5(uuid.NAMESPACE_URL, 'https://example.com/')
    expect(u).toBe('dd2c1780-811a-5296-81c5-178a0ef488bc')
    const as = (format: 'standard' | 'compact' | 'urn' | 'upper') =>
      generateUuids({ version: 5, namespace: 'url', name: 'https://example.com/', format }).uuids[0]
    expect(as('compact')).toBe(u!.replaceAll('-', ''))
    expect(as('urn')).toBe(`urn:uuid:${u}`)
    expect(as('upper')).toBe(u!.toUpperCase())
  })

  it('hashes the name as UTF-8 bytes, or in name_encoding', () => {
    const utf8 = generateUuids({ version: 3, namespace: 'dns', name: 'é' }).uuids[0]
    // Python's uuid.uuid3(uuid.NAMESPACE_DNS, 'é')
    expect(utf8).toBe('3a356d77-46a8-3ec1-8205-b80596740632')
    expect(generateUuids({ version: 3, namespace: 'dns', name: 'c3a9', name_encoding: 'hex' }).uuids[0]).toBe(
      utf8,
    )
    fails(() => generateUuids({ version: 3, namespace: 'dns', name: 'a\ud800' }), 'ERR_INVALID_ENCODING', {
      field: 'name',
      position: 1,
    })
  })

  it('checks which options go with which version', () => {
    const issue = (path: string) => ({ issues: [expect.objectContaining({ path })] })
    fails(() => generateUuids({ version: 5, name: 'x' }), 'ERR_VALIDATION', issue('namespace'))
    fails(() => generateUuids({ version: 3, namespace: 'dns' }), 'ERR_VALIDATION', issue('name'))
    fails(
      () => generateUuids({ version: 5, namespace: 'dns', name: 'x', count: 2 }),
      'ERR_VALIDATION',
      issue('count'),
    )
    fails(() => generateUuids({ version: 4, name: 'x' }), 'ERR_VALIDATION', issue('name'))
    fails(() => generateUuids({ version: 7, namespace: 'dns' }), 'ERR_VALIDATION', issue('namespace'))
    fails(() => generateUuids({ version: 5, namespace: 'dnz', name: 'x' }), 'ERR_INVALID_UUID', {
      field: 'namespace',
      position: 1,
    })
    fails(() => generateUuids({ version: 5, namespace: '__proto__', name: 'x' }), 'ERR_INVALID_UUID')
    fails(() => generateUuids({ version: 5, namespace: 'constructor', name: 'x' }), 'ERR_INVALID_UUID')
  })
})

describe('uuid: inspect', () => {
  it('accepts every spelling and says which', () => {
    const std = '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'
    for (const [uuid, form] of [
      [std, 'standard'],
      [std.toUpperCase(), 'standard'],
      [std.replaceAll('-', ''), 'compact'],
      [`urn:uuid:${std}`, 'urn'],
      [`URN:UUID:${std.toUpperCase()}`, 'urn'],
      [`{${std}}`, 'braced'],
    ]) {
      expect(inspectUuid({ uuid: uuid! })).toMatchObject({ normalized: std, input_format: form })
    }
  })

  it('Nil and Max are valid; other variants and undefined versions are not', () => {
    expect(inspectUuid({ uuid: '00000000-0000-0000-0000-000000000000' })).toMatchObject({
      valid: true,
      special: 'nil',
      variant: 'ncs',
      version: null,
    })
    expect(inspectUuid({ uuid: 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF' })).toMatchObject({
      valid: true,
      special: 'max',
      variant: 'future',
    })
    expect(inspectUuid({ uuid: '017f22e2-79b0-0cc3-98c4-dc0c0c07398f' })).toMatchObject({
      valid: false,
      version: 0,
    })
    expect(inspectUuid({ uuid: '017f22e2-79b0-fcc3-98c4-dc0c0c07398f' })).toMatchObject({
      valid: false,
      version: 15,
    })
    expect(inspectUuid({ uuid: '017f22e2-79b0-7cc3-58c4-dc0c0c07398f' })).toMatchObject({
      valid: false,
      variant: 'ncs',
    })
    expect(inspectUuid({ uuid: '017f22e2-79b0-7cc3-c8c4-dc0c0c07398f' })).toMatchObject({
      valid: false,
      variant: 'microsoft',
      version: null,
    })
    expect(inspectUuid({ uuid: '017f22e2-79b0-7cc3-e8c4-dc0c0c07398f' })).toMatchObject({ variant: 'future' })
    expect(inspectUuid({ uuid: '017f22e2-79b0-8cc3-98c4-dc0c0c07398f' })).toMatchObject({
      valid: true,
      version: 8,
    })
  })

  it.each([
    ['', 0, 'empty'],
    ['hello', 0, 'hex digit'],
    ['017f22e2-79b0-7cc3-98c4-dc0c0c07398', 35, 'ended early'],
    ['017f22e2-79b0-7cc3-98c4-dc0c0c07398f0', 36, 'unexpected'],
    ['017f22e279b0-7cc3-98c4-dc0c0c07398f', 8, '"-"'],
    ['017f22e2-79b0-7cc3-98c4-dc0c0c07398g', 35, 'hex digit'],
    ['017f22e279b07cc398c4dc0c0c07398', 31, 'ended early'],
    ['{017f22e2-79b0-7cc3-98c4-dc0c0c07398f', 37, 'ended early'],
    ['{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}x', 38, 'unexpected'],
    ['urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398z', 44, 'hex digit'],
    [' 017f22e2-79b0-7cc3-98c4-dc0c0c07398f', 0, 'hex digit'],
    ['017f22e2-79b0-7cc3-98c4-dc0c0c07398\ud83d\ude00', 35, 'hex digit'],
  ])('refuses %j at position %i', (uuid, position, reason) => {
    fails(() => inspectUuid({ uuid }), 'ERR_INVALID_UUID', {
      position,
      reason: expect.stringContaining(reason),
    })
  })

  it('parses whatever it formats (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        const hex = Buffer.from(bytes).toString('hex')
        const std = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
        expect(Buffer.from(parseUuid(std).bytes).toString('hex')).toBe(hex)
        expect(inspectUuid({ uuid: hex.toUpperCase() }).normalized).toBe(std)
      }),
    )
  })
})
