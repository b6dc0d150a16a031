import { FAMILIES, familiesFor } from '../../../limits/families.ts'
import { CERTIFICATE_FILE } from '../curl.ts'
import type { KeyView, ProjectView, WorkspaceView } from '../views.ts'
import { html, type SafeHtml } from './html.ts'
import { when } from './layout.ts'

const EXPIRY_CHOICES: [string, string][] = [
  ['', 'Never'],
  [String(86_400), 'In 24 hours'],
  [String(7 * 86_400), 'In 7 days'],
  [String(30 * 86_400), 'In 30 days'],
  [String(90 * 86_400), 'In 90 days'],
  [String(365 * 86_400), 'In 1 year'],
]

const STATUS_TEXT: Record<KeyView['status'], string> = {
  active: 'Active',
  rotated: 'Rotated (grace period)',
  expired: 'Expired',
  revoked: 'Revoked',
}

function createForm(workspace: WorkspaceView, projects: ProjectView[]): SafeHtml {
  const wid = encodeURIComponent(workspace.id)
  // a family the plan cannot use is not offered (the API refuses it too)
  const offered = familiesFor(workspace.plan)
  const withheld = FAMILIES.filter((f) => !offered.includes(f))
  const withEnvironments = projects.filter((p) => p.environments.length > 0)
  if (withEnvironments.length === 0) {
    return html`<p class="card">Keys belong to an environment. <a href="/console/workspaces/${wid}">Create a project and an environment</a> first.</p>`
  }
  return html`<form class="card stack" data-api="/console/api/workspaces/${wid}/keys" data-success="show-key">
  <div class="grid-2">
    <div class="field">
      <label for="key-environment">Environment</label>
      <select id="key-environment" name="environment_id" required>
        ${withEnvironments.map(
          (p) => html`<optgroup label="${p.name}">
          ${p.environments.map((e) => html`<option value="${e.id}">${p.name} / ${e.name} (${e.mode})</option>`)}
        </optgroup>`,
        )}
      </select>
    </div>
    <div class="field">
      <label for="key-name">Name <span class="optional">(optional)</span></label>
      <input id="key-name" name="name" maxlength="100" placeholder="CI deploys">
    </div>
    <div class="field">
      <label for="key-expiry">Expires</label>
      <select id="key-expiry" name="expires_at" data-kind="expiry">
        ${EXPIRY_CHOICES.map(([v, label]) => html`<option value="${v}">${label}</option>`)}
      </select>
    </div>
    <div class="field">
      <label for="key-cidrs">Allowed source addresses <span class="optional">(optional)</span></label>
      <textarea id="key-cidrs" name="allowed_cidrs" data-kind="lines" rows="2" aria-describedby="key-cidrs-hint" placeholder="203.0.113.0/24"></textarea>
      <p class="hint" id="key-cidrs-hint">One IPv4/IPv6 address or CIDR range per line. Empty: any address.</p>
    </div>
  </div>
  <fieldset>
    <legend>Endpoint families <span class="optional">(none checked: all${offered.length < FAMILIES.length ? ' the plan allows' : ''})</span></legend>
    <div class="checks">
      ${offered.map(
        (f) =>
          html`<label class="check"><input type="checkbox" name="families" value="${f}" data-kind="list"> ${f}</label>`,
      )}
    </div>
    ${
      withheld.length > 0
        ? html`<p class="hint" data-testid="paid-families">${withheld.join(', ')}: paid plans only (async jobs). Not on the ${workspace.plan} plan.</p>`
        : ''
    }
  </fieldset>
  <div class="form-error" role="alert"></div>
  <button type="submit">Create key</button>
</form>`
}

// What a key may do, in the words of the create form: families, source addresses, expiry, own quota.
function scope(key: KeyView): SafeHtml {
  const families = key.families?.length ? key.families.join(', ') : 'All families'
  const cidrs = key.allowed_cidrs?.length ? key.allowed_cidrs.join(', ') : 'Any address'
  const expiry = key.expires_at ? html`Expires ${when(key.expires_at)}` : 'No expiry'
  const quota =
    key.monthly_quota === null
      ? 'No key quota'
      : `Key quota ${key.monthly_quota.toLocaleString('en-US')} requests/month`
  return html`<ul class="scope">
    <li data-scope="families">${families}</li>
    <li data-scope="addresses">${cidrs}</li>
    <li data-scope="expiry">${expiry}</li>
    <li data-scope="quota">${quota}</li>
  </ul>`
}

// A rotation's two rows name each other, so the replacement is recognisable at a glance.
function lineage(key: KeyView): SafeHtml | string {
  if (key.replaced_by)
    return html`<br><small data-lineage="replaced-by">replaced by <code>${key.replaced_by.prefix}…</code></small>`
  if (key.rotated_from)
    return html`<br><small data-lineage="rotated-from">replaces <code>${key.rotated_from.prefix}…</code></small>`
  return ''
}

function keyRow(workspaceId: string, key: KeyView): SafeHtml {
  const base = `/console/api/workspaces/${encodeURIComponent(workspaceId)}/keys/${encodeURIComponent(key.id)}`
  const label = `${key.prefix}…${key.name ? ` (${key.name})` : ''}`
  const live = key.status === 'active' || key.status === 'rotated'
  return html`<tr data-key-id="${key.id}">
  <th scope="row">${key.name ?? html`<span class="muted">unnamed</span>`}</th>
  <td data-label="Key"><code>${key.prefix}…</code>${lineage(key)}</td>
  <td data-label="Environment">${key.project.name} / ${key.environment.name}</td>
  <td data-label="Scope">${scope(key)}</td>
  <td data-label="Created">${when(key.created_at)}</td>
  <td data-label="Last used">${when(key.last_used_at, 'Never')}</td>
  <td data-label="Status"><span class="status status-${key.status}">${STATUS_TEXT[key.status]}</span>${key.status === 'rotated' || (key.status === 'active' && key.expires_at) ? html`<br><small>until ${when(key.expires_at)}</small>` : ''}</td>
  <td class="actions">
    ${key.status === 'active' ? html`<button type="button" class="secondary" data-open="rotate-dialog" data-api="${base}/rotate" data-label="${label}">Rotate</button>` : ''}
    ${live ? html`<button type="button" class="danger quiet" data-open="revoke-dialog" data-api="${base}/revoke" data-label="${label}">Revoke</button>` : ''}
  </td>
</tr>`
}

function dialogs(selfSigned: boolean): SafeHtml {
  return html`<dialog id="key-dialog" aria-labelledby="key-dialog-title">
  <h2 id="key-dialog-title">Your new API key</h2>
  <p><strong>Copy it now: this is the only time it is shown.</strong> Anvil keeps only a hash of it.</p>
  <div class="field">
    <label for="new-key">API key</label>
    <div class="copy-row">
      <textarea id="new-key" class="whole" readonly rows="1" spellcheck="false" autocomplete="off"></textarea>
      <button type="button" data-copy="new-key">Copy key</button>
    </div>
  </div>
  <div class="field">
    <label for="new-curl">Try it with curl</label>
    <div class="copy-row">
      <textarea id="new-curl" class="whole" readonly rows="4" spellcheck="false"></textarea>
      <button type="button" data-copy="new-curl">Copy command</button>
    </div>
    ${selfSigned ? html`<p class="hint">This gateway uses a self-signed certificate: save <a href="/console/certificate.pem" download="${CERTIFICATE_FILE}">${CERTIFICATE_FILE}</a> in the directory you run curl from.</p>` : ''}
  </div>
  <p class="copy-status" role="status"></p>
  <form method="dialog"><button type="submit">Done, I have stored it</button></form>
</dialog>
<dialog id="revoke-dialog" aria-labelledby="revoke-dialog-title">
  <form data-api="" data-success="reload">
    <h2 id="revoke-dialog-title">Revoke this key?</h2>
    <p>Calls with <strong data-slot="label"></strong> will be refused from now on, on every gateway. This cannot be undone.</p>
    <div class="form-error" role="alert"></div>
    <div class="dialog-actions">
      <button type="button" class="secondary" data-close autofocus>Cancel</button>
      <button type="submit" class="danger">Revoke key</button>
    </div>
  </form>
</dialog>
<dialog id="rotate-dialog" aria-labelledby="rotate-dialog-title">
  <form data-api="" data-success="show-key">
    <h2 id="rotate-dialog-title">Rotate this key?</h2>
    <p>A new key with the same scope replaces <strong data-slot="label"></strong>. The old one keeps working for the grace period, so you can deploy the new one first.</p>
    <div class="field">
      <label for="rotate-grace">Old key keeps working for</label>
      <select id="rotate-grace" name="grace_seconds" data-kind="int">
        <option value="0">No grace: revoke it now</option>
        <option value="3600">1 hour</option>
        <option value="86400" selected>24 hours</option>
        <option value="604800">7 days</option>
      </select>
    </div>
    <div class="form-error" role="alert"></div>
    <div class="dialog-actions">
      <button type="button" class="secondary" data-close autofocus>Cancel</button>
      <button type="submit">Rotate key</button>
    </div>
  </form>
</dialog>`
}

// olderThan: the last key shown when more follow (the "Older keys" link pages on from it)
export function keysBody(
  workspace: WorkspaceView,
  projects: ProjectView[],
  keys: KeyView[],
  olderThan: string | undefined,
  selfSigned: boolean,
): SafeHtml {
  const wid = encodeURIComponent(workspace.id)
  return html`<div class="section-head"><h1>API keys</h1><a class="button-link" href="#create-key">Create a key</a></div>
<section aria-labelledby="key-list">
  <h2 id="key-list">Keys</h2>
  ${
    keys.length === 0
      ? html`<p>No keys yet: create one below.</p>`
      : html`<div class="table-wrap"><table class="keys stack">
    <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Environment</th><th scope="col">Scope</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${keys.map((k) => keyRow(workspace.id, k))}</tbody>
  </table></div>`
  }
  ${olderThan ? html`<p><a rel="next" href="/console/workspaces/${wid}/keys?starting_after=${encodeURIComponent(olderThan)}">Older keys</a></p>` : ''}
</section>
<section aria-labelledby="create-key">
  <h2 id="create-key" tabindex="-1">Create a key</h2>
  ${createForm(workspace, projects)}
</section>
${dialogs(selfSigned)}`
}
