import type { ConvertInput } from './types.ts'

// The worst data/convert bodies found, each of about `bytes` bytes of input (cost.ts has what they cost):
// for the cost model and the stall bench. The first is the worst per KiB that is not `heavy`; the others
// are what the bounds are for, and must be refused (or finish) quickly at any plan's limit.

function fill(unit: string, bytes: number): string {
  return unit.repeat(Math.max(1, Math.floor(bytes / unit.length)))
}

// The worst per byte that may run inline (cost.ts: YAML past 256 characters is heavy): CSV of
// one-character fields, as JSON.
export function tinyCsvFields(bytes: number): ConvertInput {
  const row = '1,2,3,4,5,6,7,8\r\n'
  return { input: `a,b,c,d,e,f,g,h\r\n${fill(row, bytes - row.length)}`, from: 'csv', to: 'json' }
}

// The YAML parser's worst per byte: a flow sequence of one-digit items, as JSON.
export function tinyFlowItems(bytes: number): ConvertInput {
  return { input: `[${fill('1,', bytes - 2)}1]`, from: 'yaml', to: 'json' }
}

// "Billion laughs": each level's anchor aliased nine times by the next; refused by its expanded size
// before any of it is written (size.ts), whatever the bytes.
export function aliasBomb(levels: number): ConvertInput {
  const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
  for (let i = 1; i < levels; i++)
    lines.push(
      `a${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(',')}]`,
    )
  return { input: lines.join('\n'), from: 'yaml', to: 'json' }
}

// One long string anchored once and aliased as often as the bytes allow: the yaml package's own bound
// (maxAliasCount) lets it through; ours weighs it against the output cap.
export function scalarAliases(bytes: number): ConvertInput {
  const text = fill('x', bytes / 2)
  return { input: `s: &s "${text}"\nt: [${fill('*s,', bytes / 2)}*s]`, from: 'yaml', to: 'json' }
}

// Flow collections nested as deep as the bytes allow: refused past the depth bound before the YAML
// composer recurses.
export function deepFlow(bytes: number): ConvertInput {
  const depth = Math.max(1, Math.floor(bytes / 2))
  return { input: '['.repeat(depth) + ']'.repeat(depth), from: 'yaml', to: 'json' }
}

// A CSV field of doubled quotes, the most work a byte of CSV asks for.
export function longCsvField(bytes: number): ConvertInput {
  return { input: `a\r\n"${fill('""', bytes - 6)}"\r\n`, from: 'csv', to: 'json' }
}

// A TOML table of many small keys, written as YAML: the TOML parser and the YAML writer per member.
export function hugeTable(bytes: number): ConvertInput {
  const count = Math.max(1, Math.floor(bytes / 12))
  const lines: string[] = []
  for (let i = 0; i < count; i++) lines.push(`k${i} = ${i}`)
  return { input: lines.join('\n'), from: 'toml', to: 'yaml' }
}
