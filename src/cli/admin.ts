import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'

const USAGE = `Usage: npm run admin -- <command> [options]

  workspaces list
  workspaces create --name <name> [--plan free|pro|business]
  workspaces get <workspace_id>
  workspaces update <workspace_id> [--plan <plan>] [--monthly-quota N] [--key-rate N] [--workspace-rate N]
                    [--max-json-bytes N] [--max-binary-bytes N] [--compute-budget-ms N]
                    [--max-keys N] [--max-projects N] [--max-environments N] [--max-jobs-in-flight N]
                    [--max-job-result-bytes N]
  usage <workspace_id> [--month YYYY-MM]
  keys list <workspace_id>
  keys create --workspace <workspace_id> [--project P] [--environment E] [--mode live|test] [--name N]
              [--families hash,jwt,...] [--expires-at ISO-8601] [--cidr 10.0.0.0/8,...] [--monthly-quota N]
  keys revoke <key_id>
  keys rotate <key_id> [--grace-seconds N]

Environment: ADMIN_URL (default http://ADMIN_HOST:ADMIN_PORT, i.e. http://127.0.0.1:9464; loopback
when ADMIN_HOST is 0.0.0.0),
ADMIN_TOKEN (default: the token saved in DATA_DIR/admin-token.json at first start).`

const OPTIONS = {
  name: { type: 'string' },
  plan: { type: 'string' },
  month: { type: 'string' },
  workspace: { type: 'string' },
  project: { type: 'string' },
  environment: { type: 'string' },
  mode: { type: 'string' },
  families: { type: 'string' },
  'expires-at': { type: 'string' },
  cidr: { type: 'string' },
  'monthly-quota': { type: 'string' },
  'key-rate': { type: 'string' },
  'workspace-rate': { type: 'string' },
  'max-json-bytes': { type: 'string' },
  'max-binary-bytes': { type: 'string' },
  'compute-budget-ms': { type: 'string' },
  'max-keys': { type: 'string' },
  'max-projects': { type: 'string' },
  'max-environments': { type: 'string' },
  'max-jobs-in-flight': { type: 'string' },
  'max-job-result-bytes': { type: 'string' },
  'grace-seconds': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values']

interface Call {
  method: 'GET' | 'POST' | 'PATCH'
  path: string
  body?: Record<string, unknown>
}

class UsageError extends Error {}

const int = (v: string | undefined) => (v === undefined ? undefined : Number(v))
const list = (v: string | undefined) =>
  v
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)

function need(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`missing ${what}`)
  return value
}

function toCall(positionals: string[], v: Values): Call {
  const [group, action, id] = positionals
  if (group === 'usage') {
    const q = v.month ? `?month=${encodeURIComponent(v.month)}` : ''
    return { method: 'GET', path: `/admin/workspaces/${need(action, '<workspace_id>')}/usage${q}` }
  }
  if (group === 'workspaces') {
    if (action === 'list') return { method: 'GET', path: '/admin/workspaces' }
    if (action === 'create') {
      return {
        method: 'POST',
        path: '/admin/workspaces',
        body: { name: need(v.name, '--name'), plan: v.plan },
      }
    }
    if (action === 'get') return { method: 'GET', path: `/admin/workspaces/${need(id, '<workspace_id>')}` }
    if (action === 'update') {
      const overrides = Object.fromEntries(
        Object.entries({
          monthly_quota: int(v['monthly-quota']),
          key_rate_per_second: int(v['key-rate']),
          workspace_rate_per_second: int(v['workspace-rate']),
          max_json_bytes: int(v['max-json-bytes']),
          max_binary_bytes: int(v['max-binary-bytes']),
          compute_budget_ms: int(v['compute-budget-ms']),
          max_keys: int(v['max-keys']),
          max_projects: int(v['max-projects']),
          max_environments: int(v['max-environments']),
          max_jobs_in_flight: int(v['max-jobs-in-flight']),
          max_job_result_bytes: int(v['max-job-result-bytes']),
        }).filter(([, x]) => x !== undefined),
      )
      const body: Record<string, unknown> = {}
      if (v.plan) body.plan = v.plan
      if (Object.keys(overrides).length > 0) body.overrides = overrides
      return { method: 'PATCH', path: `/admin/workspaces/${need(id, '<workspace_id>')}`, body }
    }
  }
  if (group === 'keys') {
    if (action === 'list') {
      return {
        method: 'GET',
        path: `/admin/keys?workspace_id=${encodeURIComponent(need(id, '<workspace_id>'))}`,
      }
    }
    if (action === 'create') {
      const body = {
        workspace_id: need(v.workspace, '--workspace'),
        project: v.project,
        environment: v.environment,
        mode: v.mode,
        name: v.name,
        families: list(v.families),
        expires_at: v['expires-at'],
        allowed_cidrs: list(v.cidr),
        monthly_quota: int(v['monthly-quota']),
      }
      return { method: 'POST', path: '/admin/keys', body }
    }
    if (action === 'revoke') return { method: 'POST', path: `/admin/keys/${need(id, '<key_id>')}/revoke` }
    if (action === 'rotate') {
      const grace = int(v['grace-seconds'])
      return {
        method: 'POST',
        path: `/admin/keys/${need(id, '<key_id>')}/rotate`,
        body: grace === undefined ? {} : { grace_seconds: grace },
      }
    }
  }
  throw new UsageError(`unknown command: ${positionals.join(' ') || '(none)'}`)
}

async function adminToken(): Promise<string> {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN
  const path = join(resolve(process.env.DATA_DIR ?? './.data'), 'admin-token.json')
  try {
    return (JSON.parse(await readFile(path, 'utf8')) as { token: string }).token
  } catch {
    throw new UsageError(`no ADMIN_TOKEN in the environment and none saved at ${path}`)
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options: OPTIONS, allowPositionals: true, strict: true })
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`)
    return values.help ? 0 : 2
  }
  const call = toCall(positionals, values)
  // a listener bound to every interface (ADMIN_HOST 0.0.0.0 in a container) is reached on loopback, a
  // Host the listener always answers to (ADMIN_ALLOWED_HOSTS)
  const host = process.env.ADMIN_HOST ?? '127.0.0.1'
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host
  const base = process.env.ADMIN_URL ?? `http://${reachable}:${process.env.ADMIN_PORT ?? '9464'}`
  const headers: Record<string, string> = { authorization: `Bearer ${await adminToken()}` }
  if (call.body) headers['content-type'] = 'application/json'
  const res = await fetch(new URL(call.path, base), {
    method: call.method,
    headers,
    ...(call.body ? { body: JSON.stringify(call.body) } : {}),
  })
  const payload = (await res.json()) as { ok?: boolean; data?: unknown; error?: unknown }
  if (!res.ok) {
    process.stderr.write(`${JSON.stringify(payload.error ?? payload, null, 2)}\n`)
    return 1
  }
  process.stdout.write(`${JSON.stringify(payload.data, null, 2)}\n`)
  return 0
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err)
    process.stderr.write(`${err instanceof UsageError ? `${message}\n\n${USAGE}` : `admin: ${message}`}\n`)
    process.exit(2)
  },
)
