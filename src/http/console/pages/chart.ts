import { html, type SafeHtml } from './html.ts'
import { number } from './layout.ts'

// made on the first chart drawn, not at load (ICU data: see `when` in layout.ts)
let compactFormat: Intl.NumberFormat | undefined
const compact = () => (compactFormat ??= new Intl.NumberFormat('en-US', { notation: 'compact' }))

const WIDTH = 720
const HEIGHT = 240
const LEFT = 72
const RIGHT = 8
const TOP = 12
const BOTTOM = 40

// 1, 2, 5 × 10^n at or above the value, so gridlines fall on round numbers.
function niceCeiling(value: number): number {
  if (value <= 1) return 1
  const magnitude = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= value) return step * magnitude
  return 10 * magnitude
}

// A bar per day, drawn as inline SVG (no script, no external file): each bar has a <title> for a
// tooltip, and the figure is labelled; the same numbers are in a table beside it for screen readers.
export function dailyChart(daily: { date: string; requests: number }[], id: string): SafeHtml {
  const max = niceCeiling(Math.max(0, ...daily.map((d) => d.requests)))
  const plotW = WIDTH - LEFT - RIGHT
  const plotH = HEIGHT - TOP - BOTTOM
  const slot = plotW / Math.max(1, daily.length)
  const barW = Math.max(1, slot * 0.7)
  const y = (v: number) => TOP + plotH - (v / max) * plotH
  const total = daily.reduce((sum, d) => sum + d.requests, 0)
  // requests are whole numbers: no gridline at 2.5
  const grid = [0, max / 2, max].filter(Number.isInteger).map(
    (
      v,
    ) => html`<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"></line>
    <text class="axis" x="${LEFT - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${compact().format(v)}</text>`,
  )
  const bars = daily.map((d, i) => {
    const x = LEFT + i * slot + (slot - barW) / 2
    const h = (d.requests / max) * plotH
    const day = Number(d.date.slice(8))
    const label = day === 1 || day % 5 === 0
    return html`<g>
      <rect class="bar" x="${x.toFixed(1)}" y="${(TOP + plotH - h).toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}"><title>${d.date}: ${number(d.requests)} requests</title></rect>
      ${label ? html`<text class="axis" x="${(x + barW / 2).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="middle">${day}</text>` : ''}
    </g>`
  })
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title" focusable="false">
  <title id="${id}-title">Requests per day: ${number(total)} in total, at most ${number(Math.max(0, ...daily.map((d) => d.requests)))} in one day</title>
  ${grid}
  ${bars}
</svg>`
}
