import { describe, expect, it } from 'vitest'
import { AppError } from '../../../src/errors.ts'
import { convertData, defaultBounds } from '../../../src/ops/data/convert.ts'
import { heavyConvert } from '../../../src/ops/data/cost.ts'
import type { ConvertInput } from '../../../src/ops/data/types.ts'
import {
  aliasBomb,
  deepFlow,
  hugeTable,
  longCsvField,
  scalarAliases,
  tinyCsvFields,
  tinyFlowItems,
} from '../../../src/ops/data/worst.ts'

const MiB = 1024 * 1024

function run(body: ConvertInput): { ms: number; error?: AppError } {
  const started = performance.now()
  try {
    convertData(body, defaultBounds(body.input.length))
    return { ms: performance.now() - started }
  } catch (err) {
    if (!(err instanceof AppError)) throw err
    return { ms: performance.now() - started, error: err }
  }
}

// The worst inputs at a free plan's JSON body (256 KiB) and past it: refused quickly by the bounds, or
// converted. Times are generous (a shared, loaded machine) but far below what expanding would take.
describe('data/convert worst cases', () => {
  it('refuses a billion laughs by its expanded size, without expanding it', () => {
    const { ms, error } = run(aliasBomb(10))
    expect(error?.details).toMatchObject({ reason: 'output_size' })
    expect(ms).toBeLessThan(500)
  })

  it('refuses one long string aliased until the output cap', () => {
    const { error } = run(scalarAliases(256 * 1024))
    expect(error?.details).toMatchObject({ reason: 'output_size' })
  })

  it('refuses 512 Ki levels of flow collections by depth, before composing them', () => {
    const { ms, error } = run(deepFlow(MiB))
    expect(error?.details).toMatchObject({ reason: 'depth' })
    expect(ms).toBeLessThan(5000)
  })

  it('converts a long CSV field of quotes, a huge TOML table and tiny YAML items', () => {
    for (const body of [longCsvField(MiB), hugeTable(256 * 1024), tinyFlowItems(64 * 1024)]) {
      expect(run(body).error, body.from).toBeUndefined()
    }
  })

  it('marks as heavy YAML either side (the package costs ~1 ms a call) and nesting past 32 levels', () => {
    expect(heavyConvert(aliasBomb(3))).toBe(true)
    expect(heavyConvert({ input: 'a: 1', from: 'yaml', to: 'json' })).toBe(true)
    expect(heavyConvert({ input: '{}', from: 'json', to: 'yaml' })).toBe(true)
    expect(heavyConvert({ input: '['.repeat(33), from: 'json', to: 'json' })).toBe(true)
    expect(heavyConvert({ input: '['.repeat(32), from: 'json', to: 'toml' })).toBe(false)
    expect(heavyConvert({ input: `["${'['.repeat(100)}"]`, from: 'json', to: 'json' })).toBe(false)
    expect(heavyConvert({ input: `${Array(34).fill('a').join('.')} = 1`, from: 'toml', to: 'json' })).toBe(
      true,
    )
    expect(heavyConvert({ input: `${Array(33).fill('a').join('.')} = 1`, from: 'toml', to: 'json' })).toBe(
      false,
    )
    expect(heavyConvert({ input: `a = "${'.'.repeat(100)}"`, from: 'toml', to: 'json' })).toBe(false)
    expect(heavyConvert(tinyCsvFields(4096))).toBe(false)
    expect(heavyConvert(longCsvField(4096))).toBe(false)
  })
})
