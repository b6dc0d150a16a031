import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { hash } from '../../src/ops/hash/hash.ts'
import { formatJson, formatJsonInSteps } from '../../src/ops/json/format/format.ts'
import { applyJsonPatch } from '../../src/ops/json/patch/patch.ts'
import { PROGRESS_STEP_BYTES } from '../../src/ops/progress.ts'

function recorder() {
  const seen: number[] = []
  return { caps: {}, tenant: '', seen, progress: (f: number) => seen.push(f) }
}

// A fraction per step: strictly increasing, always within (0, 1): 1 is the job's completion, not a step.
function expectSteps(seen: number[], steps: number) {
  expect(seen).toHaveLength(steps)
  for (const [i, f] of seen.entries()) {
    expect(f).toBeGreaterThan(i === 0 ? 0 : seen[i - 1]!)
    expect(f).toBeLessThan(1)
  }
}

function outcome(run: () => unknown): unknown {
  try {
    return { ok: run() }
  } catch (err) {
    return { error: (err as { code?: string; message: string; details?: unknown }).code, err: String(err) }
  }
}

// The ops that can tell how far they are report it through their context (jobs' progress), and the
// answer is the same with or without a listener.
describe('progress of the operations that can tell', () => {
  it('hash: the bytes hashed, a step per MiB, with the same digest', () => {
    const input = 'a'.repeat(5 * PROGRESS_STEP_BYTES + 123)
    const { seen, progress } = recorder()
    const stepped = hash({ algorithm: 'sha3-256', input }, { caps: {}, tenant: '', progress })
    expect(stepped).toEqual(hash({ algorithm: 'sha3-256', input }))
    expectSteps(seen, 5)
    expect(seen[0]).toBeCloseTo(PROGRESS_STEP_BYTES / input.length, 6)
    // a small input is one step: nothing to report
    const small = recorder()
    hash({ algorithm: 'crc32', input: 'x' }, small)
    expect(small.seen).toEqual([])
  })

  it('json.format: the bytes formatted, a step per MiB, with the same output', () => {
    const input = JSON.stringify({
      items: Array.from({ length: 60_000 }, (_, i) => ({ id: i, name: `é${i}` })),
    })
    const { seen, progress } = recorder()
    const stepped = formatJson({ input, indent: 2 }, { caps: {}, tenant: '', progress })
    expect(stepped).toEqual(formatJson({ input, indent: 2 }))
    const bytes = Buffer.byteLength(input)
    expectSteps(seen, Math.ceil(bytes / PROGRESS_STEP_BYTES) - 1)
  })

  it('json.format in steps splits tokens anywhere and answers exactly as in one go, errors included', () => {
    const text = fc.oneof(
      fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }).map((v) => JSON.stringify(v, null, 1)),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom(
        '{"a":1,"a":2}',
        '\ufeff[1]',
        '[1,]',
        '"\\ud800"',
        '{"é":"\u{1F600}"',
        '[1e400, -0, 1.0]',
      ),
    )
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 9 }), fc.boolean(), (input, step, sort) => {
        const params = { input, sort_keys: sort }
        expect(outcome(() => formatJsonInSteps(params, () => {}, step))).toEqual(
          outcome(() => formatJson(params)),
        )
      }),
      { numRuns: 400 },
    )
  })

  it('json.patch: the operations applied, with the same result', () => {
    const patch = Array.from({ length: 8 }, (_, i) => ({ op: 'add', path: `/k${i}`, value: i }))
    const { seen, progress } = recorder()
    const stepped = applyJsonPatch({ document: {}, patch }, { caps: {}, tenant: '', progress })
    expect(stepped).toEqual(applyJsonPatch({ document: {}, patch }))
    expectSteps(seen, 7)
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7].map((i) => i / 8))
  })
})
