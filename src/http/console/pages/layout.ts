import type { AssetUrls } from '../assets.ts'
import type { ConsoleAuth } from '../context.ts'
import type { WorkspaceView } from '../views.ts'
import { html, type SafeHtml } from './html.ts'

export type Section = 'overview' | 'keys' | 'usage' | 'settings'

export interface PageOptions {
  title: string
  assets: AssetUrls
  auth: ConsoleAuth | null
  // the workspace whose sections the navigation offers, and which of them this page is
  workspace?: WorkspaceView
  section?: Section | 'workspaces' | 'account'
  // the person's workspaces, for the switcher (a workspace's pages)
  workspaces?: WorkspaceView[]
  body: SafeHtml
  narrow?: boolean
}

const SECTION_PATHS: Record<Section, string> = {
  overview: '',
  keys: '/keys',
  usage: '/usage',
  settings: '/settings',
}

export function workspacePath(workspaceId: string, section: Section = 'overview'): string {
  return `/console/workspaces/${encodeURIComponent(workspaceId)}${SECTION_PATHS[section]}`
}

function navLink(href: string, label: string, current: boolean): SafeHtml {
  return html`<li><a href="${href}"${current ? html` aria-current="page"` : ''}>${label}</a></li>`
}

function navigation(options: PageOptions): SafeHtml {
  const ws = options.workspace
  return html`<nav aria-label="Console">
    <ul>
      ${navLink('/console/workspaces', 'Workspaces', options.section === 'workspaces')}
      ${
        ws
          ? [
              navLink(workspacePath(ws.id), 'Projects', options.section === 'overview'),
              navLink(workspacePath(ws.id, 'keys'), 'API keys', options.section === 'keys'),
              navLink(workspacePath(ws.id, 'usage'), 'Usage', options.section === 'usage'),
              navLink(workspacePath(ws.id, 'settings'), 'Settings', options.section === 'settings'),
            ]
          : ''
      }
    </ul>
  </nav>`
}

// The workspace a page is about, and a menu of the person's others (Stripe's account switcher): each
// leads to the same section of that workspace. A <details> disclosure: it works without the script, which
// only closes it on Escape or a click elsewhere.
function switcher(options: PageOptions): SafeHtml | string {
  const ws = options.workspace
  if (!ws) return ''
  const section = (options.section ?? 'overview') as Section
  const others = (options.workspaces ?? []).filter((w) => w.id !== ws.id)
  return html`<div class="crumb">
  <details class="switcher">
    <summary><span class="muted">Workspace</span> <strong>${ws.name}</strong> <span class="badge plan-${ws.plan}">${ws.plan} plan</span></summary>
    <div class="switcher-menu">
      <p class="switcher-title" id="switch-title">Switch workspace</p>
      <ul class="switcher-list" aria-labelledby="switch-title">
        <li><a class="switch-to" href="${workspacePath(ws.id, section)}" aria-current="page">${ws.name} <span class="badge plan-${ws.plan}">${ws.plan}</span></a></li>
        ${others.map((w) => html`<li><a class="switch-to" href="${workspacePath(w.id, section)}">${w.name} <span class="badge plan-${w.plan}">${w.plan}</span></a></li>`)}
      </ul>
      <p class="switcher-links"><a href="/console/workspaces">All workspaces</a> <a href="/console/workspaces#new-workspace">New workspace</a></p>
    </div>
  </details>
</div>`
}

// The page shell: one stylesheet and one module script from /console/assets (the CSP allows nothing
// inline), the session's CSRF token in a meta tag for that script, a skip link and the navigation.
export function page(options: PageOptions): SafeHtml {
  const { auth, assets } = options
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${auth ? html`<meta name="csrf-token" content="${auth.session.csrf_token}">` : ''}
<title>${options.title} · Anvil console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.css}">
<script type="module" src="${assets.js}"></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="top">
  <div class="top-inner">
    <a class="brand" href="/console">Anvil <span>console</span></a>
    ${
      auth
        ? html`${navigation(options)}
    <form class="sign-out" data-api="/console/api/signout" data-success="redirect:/console/sign-in">
      <a class="top-link" href="/docs">API docs</a>
      <a class="top-link who" href="/console/account" title="Your account"${options.section === 'account' ? html` aria-current="page"` : ''}>${auth.user.email}</a>
      <div class="form-error" role="alert"></div>
      <button type="submit" class="link-button">Sign out</button>
    </form>`
        : html`<a class="top-link docs-link" href="/docs">API docs</a>`
    }
  </div>
</header>
<main id="main" tabindex="-1"${options.narrow ? html` class="narrow"` : ''}>
${switcher(options)}
${options.body}
</main>
</body>
</html>
`
}

// Made when a page first shows a time, not when the module loads: an Intl formatter's first use reads ~5 MiB
// of ICU data into resident memory, which a gateway nobody opens the console of need not hold.
let utc: Intl.DateTimeFormat | undefined
const UTC = () =>
  (utc ??= new Intl.DateTimeFormat('en-GB', {
    timeZone: 'UTC',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  }))

export function when(iso: string | null, none = '—'): SafeHtml {
  if (!iso) return html`${none}`
  return html`<time datetime="${iso}">${UTC().format(new Date(iso))} UTC</time>`
}

export const number = (n: number) => n.toLocaleString('en-US')
