import type { AssetUrls } from '../assets.ts'
import type { ConsoleAuth } from '../context.ts'
import type { WorkspaceView } from '../views.ts'
import { html, type SafeHtml } from './html.ts'

export interface PageOptions {
  title: string
  assets: AssetUrls
  auth: ConsoleAuth | null
  // the workspace whose sections the navigation offers, and which of them this page is
  workspace?: WorkspaceView
  section?: 'overview' | 'keys' | 'usage' | 'workspaces'
  body: SafeHtml
  narrow?: boolean
}

function navLink(href: string, label: string, current: boolean): SafeHtml {
  return html`<li><a href="${href}"${current ? html` aria-current="page"` : ''}>${label}</a></li>`
}

function navigation(options: PageOptions): SafeHtml {
  const ws = options.workspace
  const base = ws ? `/console/workspaces/${encodeURIComponent(ws.id)}` : ''
  return html`<nav aria-label="Console">
    <ul>
      ${navLink('/console/workspaces', 'Workspaces', options.section === 'workspaces')}
      ${
        ws
          ? [
              navLink(base, 'Projects', options.section === 'overview'),
              navLink(`${base}/keys`, 'API keys', options.section === 'keys'),
              navLink(`${base}/usage`, 'Usage', options.section === 'usage'),
            ]
          : ''
      }
    </ul>
  </nav>`
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
      <span class="who" title="Signed in">${auth.user.email}</span>
      <div class="form-error" role="alert"></div>
      <button type="submit" class="link-button">Sign out</button>
    </form>`
        : ''
    }
  </div>
</header>
<main id="main" tabindex="-1"${options.narrow ? html` class="narrow"` : ''}>
${options.workspace ? html`<p class="crumb">Workspace <strong>${options.workspace.name}</strong> · <span class="badge plan-${options.workspace.plan}">${options.workspace.plan} plan</span></p>` : ''}
${options.body}
</main>
</body>
</html>
`
}

const UTC = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
})

export function when(iso: string | null, none = '—'): SafeHtml {
  if (!iso) return html`${none}`
  return html`<time datetime="${iso}">${UTC.format(new Date(iso))} UTC</time>`
}

export const number = (n: number) => n.toLocaleString('en-US')
