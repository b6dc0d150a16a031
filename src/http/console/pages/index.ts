import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, ERRORS } from '../../../errors.ts'
import { monthOf } from '../../../limits/month.ts'
import { isLiveKey } from '../../../limits/tenant-caps.ts'
import { toAppError } from '../../answer/error-mapping.ts'
import { memberWorkspaces, ownedWorkspace } from '../access.ts'
import type { AssetUrls } from '../assets.ts'
import type { ConsoleAuth, ConsoleDeps } from '../context.ts'
import { keyViews, projectViews, usageView, type WorkspaceView, workspaceView } from '../views.ts'
import { accountBody } from './account-page.ts'
import { safeNext, signInForm, signUpForm } from './auth-pages.ts'
import { html, type SafeHtml } from './html.ts'
import { keysBody } from './keys-page.ts'
import { type PageOptions, page } from './layout.ts'
import { settingsBody } from './settings-page.ts'
import { usageBody } from './usage-page.ts'
import { overviewBody, workspacesBody } from './workspace-pages.ts'

export interface PagesOptions {
  deps: ConsoleDeps
  assets: AssetUrls
}

type WorkspaceParams = { Params: { workspace_id: string }; Querystring: { month?: string } }
type KeysPageParams = { Params: { workspace_id: string }; Querystring: { starting_after?: string } }

// keys per page of the keys page (its "Older keys" link pages on)
const KEYS_PER_PAGE = 50

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/

// Server-rendered pages. Data comes from the same functions as the console API; every write is the
// page's script calling that API, so there is one implementation of each rule.
export async function consolePages(app: FastifyInstance, options: PagesOptions): Promise<void> {
  const { deps, assets } = options

  function send(reply: FastifyReply, opts: Omit<PageOptions, 'assets'>, status = 200): FastifyReply {
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(page({ ...opts, assets }).value)
  }

  // The private pages declare sessionCookie, so the access hook has refused a signed-out visitor
  // before the handler runs (ERR_UNAUTHORIZED, rendered below as a redirect).
  function requireAuth(request: FastifyRequest): ConsoleAuth {
    if (!request.consoleAuth) throw new AppError('ERR_UNAUTHORIZED', 'Sign in to the console first.')
    return request.consoleAuth
  }

  app.setErrorHandler(function renderErrorPage(error: FastifyError, request, reply) {
    const appError = toAppError(error, request.bodyLimit)
    // signed-out visitors of a private page go to sign-in and come back afterwards
    if (appError.code === 'ERR_UNAUTHORIZED') {
      const next = safeNext(request.url)
      const query = next === '/console/workspaces' ? '' : `?next=${encodeURIComponent(next)}`
      return reply.redirect(`/console/sign-in${query}`, 303)
    }
    const status = ERRORS[appError.code].status
    if (status >= 500) request.log.error({ err: error, code: appError.code }, 'console page failed')
    const notFound = status === 404
    const body: SafeHtml = html`<h1>${notFound ? 'Not found' : 'Something went wrong'}</h1>
<p>${notFound ? 'There is nothing here, or it is not yours to see.' : 'Please try again in a moment.'}</p>
<p><a href="/console/workspaces">Back to your workspaces</a></p>`
    return send(reply, { title: notFound ? 'Not found' : 'Error', auth: request.consoleAuth, body }, status)
  })

  app.get('/', { config: { security: 'none' } }, function consoleHome(request, reply) {
    return reply.redirect(request.consoleAuth ? '/console/workspaces' : '/console/sign-in', 303)
  })

  app.get<{ Querystring: { next?: string } }>(
    '/sign-in',
    { config: { security: 'none' } },
    function signInPage(request, reply) {
      const next = safeNext(request.query.next)
      if (request.consoleAuth) return reply.redirect(next, 303)
      return send(reply, { title: 'Sign in', auth: null, body: signInForm(next), narrow: true })
    },
  )

  app.get('/sign-up', { config: { security: 'none' } }, function signUpPage(request, reply) {
    if (request.consoleAuth) return reply.redirect('/console/workspaces', 303)
    return send(reply, { title: 'Create an account', auth: null, body: signUpForm(), narrow: true })
  })

  async function myWorkspaces(auth: ConsoleAuth): Promise<WorkspaceView[]> {
    const list = await memberWorkspaces(deps, auth.user.id)
    return list.map(({ workspace, role }) => workspaceView(deps.plans, workspace, role))
  }

  // A workspace's page: the person, the workspace (404 unless theirs) and their others, for the switcher.
  async function workspacePage(request: FastifyRequest<{ Params: { workspace_id: string } }>) {
    const auth = requireAuth(request)
    const [{ workspace, role }, workspaces] = await Promise.all([
      ownedWorkspace(deps, auth.user.id, request.params.workspace_id),
      myWorkspaces(auth),
    ])
    return { auth, workspace, view: workspaceView(deps.plans, workspace, role), workspaces }
  }

  app.get(
    '/workspaces',
    { config: { security: 'sessionCookie' } },
    async function workspacesPage(request, reply) {
      const auth = requireAuth(request)
      const views = await myWorkspaces(auth)
      return send(reply, { title: 'Workspaces', auth, section: 'workspaces', body: workspacesBody(views) })
    },
  )

  app.get<{ Querystring: { changed?: string } }>(
    '/account',
    { config: { security: 'sessionCookie' } },
    async function accountPage(request, reply) {
      const auth = requireAuth(request)
      const views = await myWorkspaces(auth)
      return send(reply, {
        title: 'Your account',
        auth,
        section: 'account',
        body: accountBody(auth.user, views, request.query.changed === 'password'),
        narrow: true,
      })
    },
  )

  app.get<WorkspaceParams>(
    '/workspaces/:workspace_id',
    { config: { security: 'sessionCookie' } },
    async function overviewPage(request, reply) {
      const { auth, workspace, view, workspaces } = await workspacePage(request)
      const projects = await projectViews(deps, workspace.id)
      return send(reply, {
        title: `Projects · ${workspace.name}`,
        auth,
        workspace: view,
        workspaces,
        section: 'overview',
        body: overviewBody(view, projects),
      })
    },
  )

  app.get<WorkspaceParams>(
    '/workspaces/:workspace_id/settings',
    { config: { security: 'sessionCookie' } },
    async function settingsPage(request, reply) {
      const { auth, workspace, view, workspaces } = await workspacePage(request)
      const now = new Date(deps.clock()).toISOString()
      const live = (await deps.store.listKeys(workspace.id)).filter((k) => isLiveKey(k, now))
      return send(reply, {
        title: `Settings · ${workspace.name}`,
        auth,
        workspace: view,
        workspaces,
        section: 'settings',
        body: settingsBody(view, live.length),
      })
    },
  )

  app.get<KeysPageParams>(
    '/workspaces/:workspace_id/keys',
    { config: { security: 'sessionCookie' } },
    async function keysPage(request, reply) {
      const { auth, workspace, view, workspaces } = await workspacePage(request)
      // a page of keys, as the console API pages them; an unknown cursor shows the newest
      const cursor = request.query.starting_after
      const page =
        (cursor &&
          (await deps.store.pageKeys(workspace.id, { limit: KEYS_PER_PAGE, startingAfter: cursor }))) ||
        (await deps.store.pageKeys(workspace.id, { limit: KEYS_PER_PAGE }))!
      const [projects, keys] = await Promise.all([
        projectViews(deps, workspace.id),
        keyViews(deps, workspace.id, page.data),
      ])
      const older = page.has_more ? keys.at(-1)?.id : undefined
      return send(reply, {
        title: `API keys · ${workspace.name}`,
        auth,
        workspace: view,
        workspaces,
        section: 'keys',
        body: keysBody(view, projects, keys, older, deps.caCertPath !== null),
      })
    },
  )

  app.get<WorkspaceParams>(
    '/workspaces/:workspace_id/usage',
    { config: { security: 'sessionCookie' } },
    async function usagePage(request, reply) {
      const { auth, workspace, view, workspaces } = await workspacePage(request)
      const current = monthOf(deps.clock())
      const month = request.query.month && MONTH.test(request.query.month) ? request.query.month : current
      const usage = await usageView(deps, workspace, month)
      return send(reply, {
        title: `Usage · ${workspace.name}`,
        auth,
        workspace: view,
        workspaces,
        section: 'usage',
        body: usageBody(workspace.id, usage, current),
      })
    },
  )
}
