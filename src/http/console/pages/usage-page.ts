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

// "at most 25 ms", as the latency buckets can tell it (null: past the last bound)
function latency(ms: number | null, last: number): string {
  if (ms === null) return `> ${seconds(last)}`
  return `≤ ${seconds(ms)}`
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${number(ms / 1000)} s` : `${number(ms)} ms`
}

type Answers = { ok: number; client_errors: number; server_errors: number }
const answered = (a: Answers) => a.ok + a.client_errors + a.server_errors

function latencies(l: UsageView['answers']['latency_ms'], last: number): SafeHtml {
  if (!l) return html`<span class="muted">—</span>`
  return html`${latency(l.p50, last)} <span class="muted">/</span> ${latency(l.p95, last)} <span class="muted">/</span> ${latency(l.p99, last)}`
}

// Successes, client errors and server errors side by side, as one bar (the numbers are beside it).
function outcomeBar(a: Answers): SafeHtml {
  const total = answered(a)
  if (total === 0) return html``
  let x = 0
  const parts = (
    [
      ['ok', a.ok, 'succeeded'],
      ['client', a.client_errors, 'client errors (4xx)'],
      ['server', a.server_errors, 'server errors (5xx)'],
    ] as const
  ).map(([kind, n, label]) => {
    const w = (n / total) * 100
    const rect = html`<rect class="outcome-${kind}" x="${x.toFixed(2)}" y="0" width="${w.toFixed(2)}" height="10"><title>${number(n)} ${label}</title></rect>`
    x += w
    return rect
  })
  return html`<svg class="outcome-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">${parts}</svg>`
}

function quotaSection(usage: UsageView): SafeHtml {
  const ws = usage.workspace
  return html`<section class="card" aria-labelledby="quota-title">
  <h2 id="quota-title">Monthly quota</h2>
  <p class="big"><span data-testid="requests">${number(ws.requests)}</span> of ${number(ws.monthly_quota)} requests <span class="muted">(${percent(ws.requests, ws.monthly_quota)})</span></p>
  <meter id="quota-meter" min="0" max="${Math.max(1, ws.monthly_quota)}" value="${ws.requests}" low="${Math.floor(ws.monthly_quota * 0.75)}" high="${Math.floor(ws.monthly_quota * 0.9)}" optimum="0" aria-label="Monthly quota used">${percent(ws.requests, ws.monthly_quota)}</meter>
  <p class="hint">Months are UTC calendar months. Refused requests do not count against the quota.</p>
  <dl class="refused">
    <div><dt>Refused: rate limit (per second)</dt><dd data-testid="refused-rate">${number(ws.refused_rate)}</dd></div>
    <div><dt>Refused: monthly quota</dt><dd data-testid="refused-quota">${number(ws.refused_quota)}</dd></div>
  </dl>
</section>`
}

function answersSection(usage: UsageView): SafeHtml {
  const a = usage.answers
  const total = answered(a)
  const last = usage.latency_bounds_ms.at(-1)!
  return html`<section class="card" aria-labelledby="answers-title">
  <h2 id="answers-title">Successes, errors and latency</h2>
  ${outcomeBar(a)}
  <dl class="stats">
    <div><dt>Succeeded</dt><dd class="ok" data-testid="answers-ok">${number(a.ok)}</dd></div>
    <div><dt>4xx errors</dt><dd data-testid="answers-4xx">${number(a.client_errors)}</dd></div>
    <div><dt>5xx errors</dt><dd data-testid="answers-5xx">${number(a.server_errors)}</dd></div>
    <div><dt>Error rate</dt><dd data-testid="error-rate">${total === 0 ? '—' : percent(a.client_errors + a.server_errors, total)}</dd></div>
    <div><dt>Latency p50</dt><dd data-testid="latency-p50">${a.latency_ms ? latency(a.latency_ms.p50, last) : '—'}</dd></div>
    <div><dt>Latency p95</dt><dd data-testid="latency-p95">${a.latency_ms ? latency(a.latency_ms.p95, last) : '—'}</dd></div>
    <div><dt>Latency p99</dt><dd data-testid="latency-p99">${a.latency_ms ? latency(a.latency_ms.p99, last) : '—'}</dd></div>
  </dl>
  <p class="hint">Every answer to this workspace's keys: refusals by the limits (429) and job status polls included, so there can be more answers than requests counted against the quota. Latency is the gateway's time to answer, by bucket: at most the time shown.</p>
</section>`
}

function endpointsSection(usage: UsageView): SafeHtml {
  const last = usage.latency_bounds_ms.at(-1)!
  return html`<section class="card" aria-labelledby="endpoints-title">
  <h2 id="endpoints-title">Per endpoint</h2>
  ${
    usage.endpoints.length === 0
      ? html`<p>No calls in ${usage.month}.</p>`
      : html`<div class="table-wrap"><table class="stack endpoints">
    <thead><tr><th scope="col">Endpoint</th><th scope="col" class="num">Answers</th><th scope="col" class="num">Succeeded</th><th scope="col" class="num">4xx</th><th scope="col" class="num">5xx</th><th scope="col" class="num">Error rate</th><th scope="col" class="num">Latency p50 / p95 / p99</th></tr></thead>
    <tbody>${usage.endpoints.map((e) => {
      const total = answered(e)
      return html`<tr data-endpoint="${e.method} ${e.path}">
      <th scope="row"><code>${e.method} ${e.path}</code></th>
      <td class="num" data-label="Answers">${number(total)}</td>
      <td class="num" data-label="Succeeded">${number(e.ok)}</td>
      <td class="num" data-label="Client errors (4xx)">${number(e.client_errors)}</td>
      <td class="num" data-label="Server errors (5xx)">${number(e.server_errors)}</td>
      <td class="num" data-label="Error rate">${percent(e.client_errors + e.server_errors, total)}</td>
      <td class="num" data-label="Latency p50 / p95 / p99">${latencies(e.latency_ms, last)}</td>
    </tr>`
    })}</tbody>
  </table></div>`
  }
</section>`
}

function dailySection(usage: UsageView): SafeHtml {
  return html`<section class="card" aria-labelledby="daily-title">
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
</section>`
}

function perKeySection(usage: UsageView): SafeHtml {
  const quota = usage.workspace.monthly_quota
  const gone = usage.deleted_keys
  return html`<section class="card" aria-labelledby="per-key-title">
  <h2 id="per-key-title">Per key</h2>
  ${
    usage.keys.length === 0 && !gone
      ? html`<p>No keys yet.</p>`
      : html`<div class="table-wrap"><table class="stack">
    <thead><tr><th scope="col">Key</th><th scope="col">Environment</th><th scope="col">Status</th><th scope="col" class="num">Requests</th><th scope="col" class="num">Refused (rate)</th><th scope="col" class="num">Refused (quota)</th><th scope="col" class="num">Share of quota</th></tr></thead>
    <tbody>${usage.keys.map(
      (k) => html`<tr data-key-id="${k.id}">
      <th scope="row"><code>${k.prefix}…</code>${k.name ? html` ${k.name}` : ''}</th>
      <td data-label="Environment">${k.environment}</td><td data-label="Status">${k.status}</td>
      <td class="num" data-label="Requests" data-testid="key-requests">${number(k.requests)}</td><td class="num" data-label="Refused (rate)">${number(k.refused_rate)}</td><td class="num" data-label="Refused (quota)">${number(k.refused_quota)}</td>
      <td class="num" data-label="Share of quota">${percent(k.requests, quota)}</td>
    </tr>`,
    )}${
      gone
        ? html`<tr data-testid="deleted-keys">
      <th scope="row"><span class="muted">Deleted keys</span></th>
      <td data-label="Environment">—</td><td data-label="Status">deleted</td>
      <td class="num" data-label="Requests">${number(gone.requests)}</td><td class="num" data-label="Refused (rate)">${number(gone.refused_rate)}</td><td class="num" data-label="Refused (quota)">${number(gone.refused_quota)}</td>
      <td class="num" data-label="Share of quota">${percent(gone.requests, quota)}</td>
    </tr>`
        : ''
    }</tbody>
  </table></div>`
  }
</section>`
}

function planSection(usage: UsageView): SafeHtml {
  return html`<section class="card" aria-labelledby="plan-title">
  <h2 id="plan-title">Plan</h2>
  ${limitsTable(usage)}
  <p class="hint">Plans and per-workspace limits are changed by the operators of this gateway.</p>
</section>`
}

// One section per concern, in the order a reader looks for them: a new one is a function and a line here.
export function usageBody(workspaceId: string, usage: UsageView, currentMonth: string): SafeHtml {
  const base = `/console/workspaces/${encodeURIComponent(workspaceId)}/usage`
  const next = shiftMonth(usage.month, 1)
  return html`<h1>Usage <span class="muted">${usage.month}</span></h1>
<nav class="month-nav" aria-label="Month">
  <a href="${base}?month=${shiftMonth(usage.month, -1)}">← Previous month</a>
  ${usage.month < currentMonth ? html`<a href="${base}?month=${next}">Next month →</a>` : ''}
</nav>
${quotaSection(usage)}
${answersSection(usage)}
${endpointsSection(usage)}
${dailySection(usage)}
${perKeySection(usage)}
${planSection(usage)}`
}
