import type { UsageView } from '../views.ts'
import { dailyChart } from './chart.ts'
import { html, type SafeHtml } from './html.ts'
import { number } from './layout.ts'

function bytes(n: number): string {
  if (n === 0) return '0 bytes'
  if (n % (1024 * 1024 * 1024) === 0) return `${n / (1024 * 1024 * 1024)} GiB`
  if (n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`
  if (n % 1024 === 0) return `${n / 1024} KiB`
  return `${number(n)} bytes`
}

function percent(part: number, whole: number): string {
  if (whole <= 0) return part > 0 ? '100%' : '0%'
  const p = (part / whole) * 100
  if (p > 0 && p < 0.01) return '<0.01%'
  return `${p < 10 ? p.toFixed(2) : p.toFixed(1)}%`
}

function shiftMonth(month: string, delta: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number]
  return new Date(Date.UTC(y, m - 1 + delta, 1)).toISOString().slice(0, 7)
}

function limitsTable(usage: UsageView): SafeHtml {
  const l = usage.limits
  const rows: [string, string][] = [
    ['Requests per month', number(l.monthly_quota)],
    ['Requests per second, per key', number(l.key_rate_per_second)],
    ['Requests per second, per workspace', number(l.workspace_rate_per_second)],
    ['Largest JSON body', bytes(l.max_json_bytes)],
    ['Largest binary body', bytes(l.max_binary_bytes)],
    ['Compute budget per request', `${number(l.compute_budget_ms / 1000)} s`],
    ['Worker pool', l.pool === 'paid' ? 'Paid pool' : 'Shared free pool'],
    [
      'Job data kept now (inputs, results, records)',
      `${usage.job_storage_bytes === null ? 'unavailable' : bytes(usage.job_storage_bytes)} of ${bytes(l.max_job_storage_bytes)}`,
    ],
  ]
  return html`<div class="table-wrap"><table>
  <caption>Limits of the <strong>${usage.plan}</strong> plan for this workspace</caption>
  <tbody>${rows.map(([k, v]) => html`<tr><th scope="row">${k}</th><td class="num">${v}</td></tr>`)}</tbody>
</table></div>`
}

export function usageBody(workspaceId: string, usage: UsageView, currentMonth: string): SafeHtml {
  const base = `/console/workspaces/${encodeURIComponent(workspaceId)}/usage`
  const ws = usage.workspace
  const next = shiftMonth(usage.month, 1)
  return html`<h1>Usage <span class="muted">${usage.month}</span></h1>
<nav class="month-nav" aria-label="Month">
  <a href="${base}?month=${shiftMonth(usage.month, -1)}">← Previous month</a>
  ${usage.month < currentMonth ? html`<a href="${base}?month=${next}">Next month →</a>` : ''}
</nav>
<section class="card" aria-labelledby="quota-title">
  <h2 id="quota-title">Monthly quota</h2>
  <p class="big"><span data-testid="requests">${number(ws.requests)}</span> of ${number(ws.monthly_quota)} requests <span class="muted">(${percent(ws.requests, ws.monthly_quota)})</span></p>
  <meter id="quota-meter" min="0" max="${Math.max(1, ws.monthly_quota)}" value="${ws.requests}" low="${Math.floor(ws.monthly_quota * 0.75)}" high="${Math.floor(ws.monthly_quota * 0.9)}" optimum="0" aria-label="Monthly quota used">${percent(ws.requests, ws.monthly_quota)}</meter>
  <p class="hint">Months are UTC calendar months. Refused requests do not count against the quota.</p>
  <dl class="refused">
    <div><dt>Refused: rate limit (per second)</dt><dd data-testid="refused-rate">${number(ws.refused_rate)}</dd></div>
    <div><dt>Refused: monthly quota</dt><dd data-testid="refused-quota">${number(ws.refused_quota)}</dd></div>
  </dl>
</section>
<section class="card" aria-labelledby="daily-title">
  <h2 id="daily-title">Requests per day</h2>
  <figure>
    ${dailyChart(usage.daily, 'daily-chart')}
    <figcaption>Successful requests per UTC day in ${usage.month}.</figcaption>
  </figure>
  <details>
    <summary>Show the numbers</summary>
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Day</th><th scope="col" class="num">Requests</th></tr></thead>
      <tbody>${usage.daily.map((d) => html`<tr><th scope="row">${d.date}</th><td class="num">${number(d.requests)}</td></tr>`)}</tbody>
    </table></div>
  </details>
</section>
<section class="card" aria-labelledby="per-key-title">
  <h2 id="per-key-title">Per key</h2>
  ${
    usage.keys.length === 0
      ? html`<p>No keys yet.</p>`
      : html`<div class="table-wrap"><table class="stack">
    <thead><tr><th scope="col">Key</th><th scope="col">Environment</th><th scope="col">Status</th><th scope="col" class="num">Requests</th><th scope="col" class="num">Refused (rate)</th><th scope="col" class="num">Refused (quota)</th><th scope="col" class="num">Share of quota</th></tr></thead>
    <tbody>${usage.keys.map(
      (k) => html`<tr data-key-id="${k.id}">
      <th scope="row"><code>${k.prefix}…</code>${k.name ? html` ${k.name}` : ''}</th>
      <td data-label="Environment">${k.environment}</td><td data-label="Status">${k.status}</td>
      <td class="num" data-label="Requests" data-testid="key-requests">${number(k.requests)}</td><td class="num" data-label="Refused (rate)">${number(k.refused_rate)}</td><td class="num" data-label="Refused (quota)">${number(k.refused_quota)}</td>
      <td class="num" data-label="Share of quota">${percent(k.requests, ws.monthly_quota)}</td>
    </tr>`,
    )}</tbody>
  </table></div>`
  }
</section>
<section class="card" aria-labelledby="plan-title">
  <h2 id="plan-title">Plan</h2>
  ${limitsTable(usage)}
  <p class="hint">Plans and per-workspace limits are changed by the operators of this gateway.</p>
</section>`
}
