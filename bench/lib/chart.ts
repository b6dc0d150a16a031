import { informational, meets, type ScenarioOutcome } from './verdict.ts'

const WIDTH = 880
const LABEL = 190
const ROW = 34
const TOP = 50
const RIGHT = 70
const TICKS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
const COLOURS = { meets: '#2e9d4f', misses: '#d0393e', informational: '#7a8699' }

function xml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

// One bar per scenario from parity (1×) to its ratio on a log scale, so 0.5× and 2× are equally far from
// parity and a 50× scenario does not flatten the others; a black tick marks the target. Green meets it,
// red misses it, grey is informational; a scenario that did not run gets a note instead of a bar.
export function ratioChart(outcomes: ScenarioOutcome[]): string {
  const values = outcomes.flatMap((o) => [o.target.ratio, o.result?.ratio ?? 1]).filter((v) => v > 0)
  const lo = Math.log10(Math.min(0.5, ...values) / 1.3)
  const hi = Math.log10(Math.max(2, ...values) * 1.3)
  const plot = WIDTH - LABEL - RIGHT
  const x = (ratio: number) => LABEL + ((Math.log10(ratio) - lo) / (hi - lo)) * plot
  const bottom = TOP + outcomes.length * ROW
  const height = bottom + 34
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif" font-size="13">`,
    '<title>Anvil benchmark: ratio to baseline per scenario (higher is better)</title>',
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${LABEL}" y="22" font-size="15" font-weight="bold">Ratio to baseline, log scale (higher is better)</text>`,
    `<text x="${LABEL}" y="40" fill="#555">bar: from parity to the measured ratio · black tick: target · green meets, red misses, grey informational</text>`,
  ]
  for (const tick of TICKS.filter((t) => Math.log10(t) >= lo && Math.log10(t) <= hi)) {
    const tx = x(tick).toFixed(1)
    const dash = tick === 1 ? ' stroke-dasharray="4 3"' : ''
    parts.push(
      `<line x1="${tx}" x2="${tx}" y1="${TOP}" y2="${bottom}" stroke="${tick === 1 ? '#333' : '#e3e3e3'}"${dash}/>`,
      `<text x="${tx}" y="${bottom + 18}" text-anchor="middle" fill="#555">${tick}×</text>`,
    )
  }
  const parity = x(1)
  outcomes.forEach((o, i) => {
    const y = TOP + i * ROW
    parts.push(`<text x="${LABEL - 8}" y="${y + 21}" text-anchor="end">${xml(o.name)}</text>`)
    const ratio = o.result?.ratio
    if (ratio === undefined || !(ratio > 0) || !Number.isFinite(ratio)) {
      const why = o.error ? `did not run: ${o.error}` : 'no ratio'
      parts.push(`<text x="${LABEL + 4}" y="${y + 21}" fill="#777">${xml(why)}</text>`)
      return
    }
    const colour = informational(o) ? COLOURS.informational : meets(o) ? COLOURS.meets : COLOURS.misses
    const end = x(ratio)
    const left = Math.min(parity, end)
    const target = x(o.target.ratio).toFixed(1)
    parts.push(
      `<rect x="${left.toFixed(1)}" y="${y + 7}" width="${Math.max(1, Math.abs(end - parity)).toFixed(1)}" height="${ROW - 14}" fill="${colour}"><title>${xml(o.title)}: ${ratio.toFixed(3)}×; target: ${xml(o.target.text)}</title></rect>`,
      `<line x1="${target}" x2="${target}" y1="${y + 3}" y2="${y + ROW - 3}" stroke="#000" stroke-width="3"/>`,
      `<text x="${(Math.max(parity, end) + 6).toFixed(1)}" y="${y + 21}">${ratio.toFixed(2)}×</text>`,
    )
  })
  parts.push('</svg>')
  return `${parts.join('\n')}\n`
}
