import type { ProjectView, WorkspaceView } from '../views.ts'
import { deleteDialog, renameDialog } from './dialogs.ts'
import { html, type SafeHtml } from './html.ts'
import { when, workspacePath } from './layout.ts'

export function workspacesBody(workspaces: WorkspaceView[]): SafeHtml {
  return html`<h1>Workspaces</h1>
${
  workspaces.length === 0
    ? html`<p>You have no workspace yet. Create one to get API keys.</p>`
    : html`<ul class="cards">
  ${workspaces.map(
    (w) => html`<li class="card">
    <h2><a href="/console/workspaces/${encodeURIComponent(w.id)}">${w.name}</a></h2>
    <p><span class="badge plan-${w.plan}">${w.plan} plan</span> · ${w.role} · created ${when(w.created_at)}</p>
    <p class="links"><a href="${workspacePath(w.id, 'keys')}">API keys</a> <a href="${workspacePath(w.id, 'usage')}">Usage</a> <a href="${workspacePath(w.id, 'settings')}">Settings</a></p>
  </li>`,
  )}
</ul>`
}
<section aria-labelledby="new-workspace">
  <h2 id="new-workspace">New workspace</h2>
  <form class="card inline-form" data-api="/console/api/workspaces" data-success="redirect:/console/workspaces/{id}">
    <div class="field">
      <label for="workspace-name">Name</label>
      <input id="workspace-name" name="name" required maxlength="100">
    </div>
    <div class="form-error" role="alert"></div>
    <button type="submit">Create workspace</button>
  </form>
</section>`
}

function actions(api: string, label: string, name: string, detail: string): SafeHtml {
  return html`<button type="button" class="secondary" data-open="rename-dialog" data-api="${api}" data-label="${label}" data-value="${name}">Rename<span class="visually-hidden"> ${label}</span></button>
    <button type="button" class="danger quiet" data-open="delete-dialog" data-api="${api}" data-label="${label}" data-detail="${detail}">Delete<span class="visually-hidden"> ${label}</span></button>`
}

function environmentsTable(api: string, project: ProjectView): SafeHtml {
  if (project.environments.length === 0) return html`<p>No environments yet.</p>`
  return html`<div class="table-wrap"><table class="stack">
  <caption class="visually-hidden">Environments of ${project.name}</caption>
  <thead><tr><th scope="col">Environment</th><th scope="col">Mode</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>
  ${project.environments.map(
    (e) =>
      html`<tr data-environment-id="${e.id}"><th scope="row">${e.name}</th><td data-label="Mode"><span class="badge mode-${e.mode}">${e.mode}</span></td><td data-label="Created">${when(e.created_at)}</td>
      <td class="actions">${actions(
        `${api}/environments/${encodeURIComponent(e.id)}`,
        `environment ${e.name}`,
        e.name,
        `The ${e.name} environment of ${project.name} is deleted with its revoked and expired keys.`,
      )}</td></tr>`,
  )}
  </tbody>
</table></div>`
}

function projectSection(workspaceId: string, project: ProjectView): SafeHtml {
  const api = `/console/api/workspaces/${encodeURIComponent(workspaceId)}/projects/${encodeURIComponent(project.id)}`
  const idp = `env-${project.id}`
  return html`<section class="card project" aria-labelledby="${idp}-title">
  <div class="section-head">
    <h2 id="${idp}-title">${project.name}</h2>
    <div class="actions">${actions(
      api,
      `project ${project.name}`,
      project.name,
      `The ${project.name} project is deleted with its environments and their revoked and expired keys.`,
    )}</div>
  </div>
  ${environmentsTable(api, project)}
  <form class="inline-form" data-api="${api}/environments" data-success="reload">
    <div class="field">
      <label for="${idp}-name">New environment in ${project.name}</label>
      <input id="${idp}-name" name="name" required maxlength="100" placeholder="production">
    </div>
    <div class="field">
      <label for="${idp}-mode">Mode</label>
      <select id="${idp}-mode" name="mode">
        <option value="live">live (anvil_live_ keys)</option>
        <option value="test">test (anvil_test_ keys)</option>
      </select>
    </div>
    <div class="form-error" role="alert"></div>
    <button type="submit">Add environment</button>
  </form>
</section>`
}

export function overviewBody(workspace: WorkspaceView, projects: ProjectView[]): SafeHtml {
  const wid = encodeURIComponent(workspace.id)
  return html`<h1>Projects</h1>
<p class="lead">A key belongs to one environment of one project: production in live mode, staging or development in test mode.
${projects.length > 0 ? html`Create keys on the <a href="/console/workspaces/${wid}/keys">API keys</a> page.` : ''}</p>
${projects.length === 0 ? html`<p>No projects yet: create your first one below.</p>` : projects.map((p) => projectSection(workspace.id, p))}
<section aria-labelledby="new-project">
  <h2 id="new-project">New project</h2>
  <form class="card inline-form" data-api="/console/api/workspaces/${wid}/projects" data-success="reload">
    <div class="field">
      <label for="project-name">Project name</label>
      <input id="project-name" name="name" required maxlength="100">
    </div>
    <div class="form-error" role="alert"></div>
    <button type="submit">Create project</button>
  </form>
</section>
${renameDialog()}
${deleteDialog()}`
}
