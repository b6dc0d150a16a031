import type { ProjectView, WorkspaceView } from '../views.ts'
import { html, type SafeHtml } from './html.ts'
import { when } from './layout.ts'

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
    <p class="links"><a href="/console/workspaces/${encodeURIComponent(w.id)}/keys">API keys</a> <a href="/console/workspaces/${encodeURIComponent(w.id)}/usage">Usage</a></p>
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

function environmentsTable(project: ProjectView): SafeHtml {
  if (project.environments.length === 0) return html`<p>No environments yet.</p>`
  return html`<div class="table-wrap"><table>
  <caption class="visually-hidden">Environments of ${project.name}</caption>
  <thead><tr><th scope="col">Environment</th><th scope="col">Mode</th><th scope="col">Created</th></tr></thead>
  <tbody>
  ${project.environments.map(
    (e) =>
      html`<tr><th scope="row">${e.name}</th><td><span class="badge mode-${e.mode}">${e.mode}</span></td><td>${when(e.created_at)}</td></tr>`,
  )}
  </tbody>
</table></div>`
}

function projectSection(workspaceId: string, project: ProjectView): SafeHtml {
  const api = `/console/api/workspaces/${encodeURIComponent(workspaceId)}/projects/${encodeURIComponent(project.id)}/environments`
  const idp = `env-${project.id}`
  return html`<section class="card project" aria-labelledby="${idp}-title">
  <h2 id="${idp}-title">${project.name}</h2>
  ${environmentsTable(project)}
  <form class="inline-form" data-api="${api}" data-success="reload">
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
</section>`
}
