import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { compressSession, decompressSession, type Session } from '../../../src/ops/compression/session.ts'
import { ALGORITHMS, type Algorithm } from '../../../src/ops/compression/types.ts'
import { twoLetterText } from '../../../src/ops/compression/worst.ts'
import { describePython, runPython } from '../../helpers/python-oracle.ts'

// The compression family against independent implementations: Python's gzip, zlib, brotli and zstandard
// modules, and Debian's gzip, brotli and zstd tools, both ways.

function drain(session: Session, input: Uint8Array): Buffer {
  const out: Uint8Array[] = [...session.write(input), ...session.end()]
  return Buffer.concat(out)
}
const pack = (a: Algorithm, input: Uint8Array, level: number) => drain(compressSession(a, level), input)
const unpack = (a: Algorithm, input: Uint8Array) => drain(decompressSession(a, {}, { held: false }), input)

function samples(): Buffer[] {
  return [
    Buffer.alloc(0),
    Buffer.from('a'),
    Buffer.from(twoLetterText(50_000)),
    randomBytes(70_000),
    Buffer.alloc(300_000, 0x20),
    Buffer.from('Grüße, 世界 😀 '.repeat(3000)),
  ]
}
const LEVELS: Record<Algorithm, number[]> = {
  gzip: [0, 1, 6, 9],
  deflate: [1, 9],
  'deflate-raw': [6],
  brotli: [0, 5, 11],
  zstd: [1, 3, 19],
}

const PYTHON_DECODE = `
import base64, brotli, gzip, json, sys, zlib, zstandard
out = []
for c in json.load(sys.stdin):
    data = base64.b64decode(c['data'])
    a = c['algorithm']
    if a == 'gzip': b = gzip.decompress(data)
    elif a == 'deflate': b = zlib.decompress(data)
    elif a == 'deflate-raw': b = zlib.decompress(data, wbits=-15)
    elif a == 'brotli': b = brotli.decompress(data)
    else: b = zstandard.ZstdDecompressor().decompressobj().decompress(data)
    out.append(base64.b64encode(b).decode())
print(json.dumps(out))
`
const PYTHON_ENCODE = `
import base64, brotli, gzip, json, sys, zlib, zstandard
out = []
for c in json.load(sys.stdin):
    data = base64.b64decode(c['data'])
    a, level = c['algorithm'], c['level']
    if a == 'gzip': b = gzip.compress(data, compresslevel=level) + gzip.compress(data[:10], compresslevel=level)
    elif a == 'deflate': b = zlib.compress(data, level)
    elif a == 'deflate-raw':
        o = zlib.compressobj(level, zlib.DEFLATED, -15); b = o.compress(data) + o.flush()
    elif a == 'brotli': b = brotli.compress(data, quality=level)
    else:
        cctx = zstandard.ZstdCompressor(level=level, write_checksum=True)
        b = cctx.compress(data) + cctx.compress(data[:10])
    out.append(base64.b64encode(b).decode())
print(json.dumps(out))
`

describePython(
  'compression against Python (gzip, zlib, brotli, zstandard)',
  ['gzip', 'zlib', 'brotli', 'zstandard'],
  () => {
    it('Python decodes what is compressed here, at several levels of each algorithm', () => {
      const cases = samples().flatMap((data) =>
        ALGORITHMS.flatMap((algorithm) =>
          LEVELS[algorithm].map((level) => ({
            algorithm,
            level,
            data,
            packed: pack(algorithm, data, level),
          })),
        ),
      )
      const decoded = runPython<string[]>(
        PYTHON_DECODE,
        cases.map((c) => ({ algorithm: c.algorithm, data: c.packed.toString('base64') })),
      )
      cases.forEach((c, i) => {
        expect(
          Buffer.from(decoded[i]!, 'base64').equals(c.data),
          `${c.algorithm} ${c.level} ${c.data.length}`,
        ).toBe(true)
      })
    }, 120_000)

    it('what Python compresses decodes here (gzip members and zstd frames concatenated)', () => {
      const cases = samples().flatMap((data) =>
        ALGORITHMS.flatMap((algorithm) => LEVELS[algorithm].map((level) => ({ algorithm, level, data }))),
      )
      const packed = runPython<string[]>(
        PYTHON_ENCODE,
        cases.map((c) => ({
          algorithm: c.algorithm,
          level: Math.max(c.level, 1),
          data: c.data.toString('base64'),
        })),
      )
      cases.forEach((c, i) => {
        const twice = c.algorithm === 'gzip' || c.algorithm === 'zstd'
        const expected = twice ? Buffer.concat([c.data, c.data.subarray(0, 10)]) : c.data
        expect(
          unpack(c.algorithm, Buffer.from(packed[i]!, 'base64')).equals(expected),
          `${c.algorithm} ${c.level}`,
        ).toBe(true)
      })
    }, 120_000)
  },
)

const TOOLS = { gzip: 'gzip', brotli: 'brotli', zstd: 'zstd' } as const

function toolsMissing(): string | null {
  const missing = Object.values(TOOLS).filter((t) => spawnSync(t, ['--version']).status !== 0)
  if (missing.length === 0) return null
  const reason = `the ${missing.join(', ')} tools are not installed (.ci/run's apt-get line installs them)`
  if (process.env.CI === 'true') throw new Error(`CI=true but ${reason}`)
  return reason
}

const missing = toolsMissing()
describe.skipIf(missing !== null)('compression against the gzip, brotli and zstd tools', () => {
  const tool = (name: string, args: string[], input: Buffer) =>
    execFileSync(name, args, { input, maxBuffer: 64 * 1024 * 1024 })

  it('the tools decode what is compressed here', () => {
    for (const data of samples()) {
      expect(tool('gzip', ['-dc'], pack('gzip', data, 9)).equals(data)).toBe(true)
      expect(tool('brotli', ['-dc'], pack('brotli', data, 11)).equals(data)).toBe(true)
      expect(tool('zstd', ['-dcq'], pack('zstd', data, 19)).equals(data)).toBe(true)
    }
  })

  it('what the tools compress decodes here, gzip files concatenated and zstd --long included', () => {
    for (const data of samples()) {
      const gz = tool('gzip', ['-9c'], data)
      expect(unpack('gzip', Buffer.concat([gz, gz])).equals(Buffer.concat([data, data]))).toBe(true)
      expect(unpack('brotli', tool('brotli', ['-c', '-q', '11'], data)).equals(data)).toBe(true)
      expect(unpack('zstd', tool('zstd', ['-cq', '-19'], data)).equals(data)).toBe(true)
      expect(unpack('zstd', tool('zstd', ['-cq', '--long=27'], data)).equals(data)).toBe(true)
    }
  })
})
if (missing) process.stderr.write(`skipping the compression tools' checks: ${missing}\n`)
