import type { WorkspaceView } from '../views.ts'
import { html, type SafeHtml } from './html.ts'
import { number, when, workspacePath } from './layout.ts'

// A workspace's settings: its name, what identifies it, and deleting it (GitHub's and Unkey's "danger
// zone": the name typed again to confirm).
export function settingsBody(workspace: WorkspaceView, liveKeys: number): SafeHtml {
  const api = `/console/api/workspaces/${encodeURIComponent(workspace.id)}`
  return html`<h1>Settings</h1>
<section class="card" aria-labelledby="name-title">
  <h2 id="name-title">Workspace name</h2>
  <form class="inline-form" data-api="${api}" data-method="PATCH" data-success="reload">
    <div class="field">
      <label for="workspace-name">Name</label>
      <input id="workspace-name" name="name" required maxlength="100" value="${workspace.name}">
    </div>
    <div class="form-error" role="alert"></div>
    <button type="submit">Save name</button>
  </form>
</section>
<section class="card" aria-labelledby="about-title">
  <h2 id="about-title">About this workspace</h2>
  <dl class="facts">
    <div><dt>Workspace ID</dt><dd><code>${workspace.id}</code></dd></div>
    <div><dt>Plan</dt><dd><span class="badge plan-${workspace.plan}">${workspace.plan} plan</span> <a href="${workspacePath(workspace.id, 'usage')}#plan-title">Limits</a></dd></div>
    <div><dt>Created</dt><dd>${when(workspace.created_at)}</dd></div>
    <div><dt>Your role</dt><dd>${workspace.role}</dd></div>
  </dl>
</section>
<section class="card danger-zone" aria-labelledby="delete-title">
  <h2 id="delete-title">Delete this workspace</h2>
  <p>Its projects, environments, keys and usage are deleted for good, and its name goes from your workspaces.</p>
  ${
    liveKeys > 0
      ? html`<p class="notice" data-testid="live-keys">It has ${number(liveKeys)} live ${liveKeys === 1 ? 'key' : 'keys'}. Deleting never revokes keys: <a href="${workspacePath(workspace.id, 'keys')}">revoke ${liveKeys === 1 ? 'it' : 'them'} on the API keys page</a> first.</p>`
      : html`<p>It has no live key. While it has jobs queued or running, it cannot be deleted: let them finish first.</p>`
  }
  <button type="button" class="danger" data-open="delete-workspace-dialog">Delete workspace</button>
</section>
<dialog id="delete-workspace-dialog" aria-labelledby="delete-workspace-title">
  <form data-api="${api}" data-method="DELETE" data-success="redirect:/console/workspaces">
    <h2 id="delete-workspace-title">Delete ${workspace.name}?</h2>
    <p>Everything in it is deleted, for good. This cannot be undone.</p>
    <div class="field">
      <label for="confirm-workspace-name">Type the workspace name, <strong>${workspace.name}</strong>, to confirm</label>
      <input id="confirm-workspace-name" required autocomplete="off" data-must-equal="${workspace.name}">
    </div>
    <div class="form-error" role="alert"></div>
    <div class="dialog-actions">
      <button type="button" class="secondary" data-close>Cancel</button>
      <button type="submit" class="danger">Delete workspace</button>
    </div>
  </form>
</dialog>`
}
