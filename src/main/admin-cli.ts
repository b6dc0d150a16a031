#!/usr/bin/env node
import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import {
  type Call,
  commandUsage,
  groupUsage,
  type Help,
  parseCommand,
  USAGE,
  UsageError,
} from './admin-args.ts'
import { adminListenerPath, reachableAdminUrl, readAdminListener } from './admin-listener.ts'

// anvil-admin: a CLI for people over the admin API. Exit status: 0 done; 1 the server refused; 2 bad
// arguments or no token (usage on stderr, nothing sent); 3 the server was not reached or did not answer.
const TIMEOUT_MS = 30_000

class Unreachable extends Error {}

// Where the gateway is and how to authenticate, found the way the gateway was configured: the environment
// the gateway reads (ADMIN_URL, ADMIN_HOST/ADMIN_PORT, ADMIN_TOKEN), else what the gateway recorded in
// its DATA_DIR when it started (the listener's URL, whether its token is saved there), else the defaults.
// `looked` says where each was sought, for the message when the gateway cannot be reached.
interface Target {
  base: string
  from: string
  looked: string[]
  token: () => Promise<string>
}

async function locate(): Promise<Target> {
  const env = process.env
  const dataDir = resolve(env.DATA_DIR ?? './.data')
  const dataDirShown = env.DATA_DIR ? `DATA_DIR ${dataDir}` : `DATA_DIR unset: ${dataDir}`
  const recordPath = adminListenerPath(dataDir)
  const record = await readAdminListener(dataDir)
  const looked = [
    `ADMIN_URL (${env.ADMIN_URL ? 'set' : 'unset'})`,
    `ADMIN_HOST/ADMIN_PORT (${env.ADMIN_HOST || env.ADMIN_PORT ? 'set' : 'unset'})`,
    `the record a gateway writes when it starts, ${recordPath} (${dataDirShown}; ${record ? 'found' : 'none there'})`,
    'the default http://127.0.0.1:9464',
  ]
  let base: string
  let from: string
  if (env.ADMIN_URL) {
    base = env.ADMIN_URL
    from = 'ADMIN_URL'
  } else if (env.ADMIN_HOST || env.ADMIN_PORT) {
    base = reachableAdminUrl(env.ADMIN_HOST ?? '127.0.0.1', env.ADMIN_PORT ?? '9464')
    from = 'ADMIN_HOST/ADMIN_PORT'
  } else if (record) {
    base = record.url
    from = `${recordPath} (gateway pid ${record.pid}, started ${record.started_at})`
  } else {
    base = 'http://127.0.0.1:9464'
    from = 'the default'
  }
  try {
    new URL(base)
  } catch {
    throw new UsageError(`${from} is not a URL: ${JSON.stringify(base)}`)
  }
  const tokenPath = join(dataDir, 'admin-token.json')
  return {
    base,
    from,
    looked,
    async token() {
      if (env.ADMIN_TOKEN) return env.ADMIN_TOKEN
      try {
        return (JSON.parse(await readFile(tokenPath, 'utf8')) as { token: string }).token
      } catch {
        const hint =
          record?.token === 'environment'
            ? `the gateway at ${record.url} takes its token from its own ADMIN_TOKEN environment variable: set ADMIN_TOKEN to the same value`
            : `set ADMIN_TOKEN, or DATA_DIR to the directory the gateway was started with (${dataDirShown})`
        throw new UsageError(`no ADMIN_TOKEN in the environment and none saved at ${tokenPath}; ${hint}`)
      }
    },
  }
}

// fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, ...) is on its cause
function reason(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000} s`
  const cause =
    err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err))
}

interface ListPage {
  data: { id: string }[]
  has_more: boolean
}

// Follows has_more to the end and prints the items as one list (bounded: 10,000 pages of 100)
async function sendAll(call: Call): Promise<number> {
  const items: unknown[] = []
  const sep = call.path.includes('?') ? '&' : '?'
  let after: string | undefined
  for (let pages = 0; pages < 10_000; pages++) {
    const path = `${call.path}${sep}limit=100${after ? `&starting_after=${encodeURIComponent(after)}` : ''}`
    const answer = await request({ method: 'GET', path })
    if (!answer.ok) return 1
    const page = answer.body as ListPage
    items.push(...page.data)
    if (!page.has_more || page.data.length === 0) break
    after = page.data.at(-1)!.id
  }
  process.stdout.write(`${JSON.stringify({ data: items, has_more: false }, null, 2)}\n`)
  return 0
}

async function send(call: Call): Promise<number> {
  if (call.pageAll) return sendAll(call)
  const answer = await request(call)
  if (!answer.ok) return 1
  process.stdout.write(`${JSON.stringify(answer.body, null, 2)}\n`)
  const note = call.note?.(answer.body)
  if (note) process.stderr.write(`${note}\n`)
  return 0
}

let located: Promise<Target> | undefined

// one call; a refusal is printed on stderr
// the answer's `data` as `body`: what the admin API answered, not an envelope of ours
async function request(call: Call): Promise<{ ok: boolean; body?: unknown }> {
  located ??= locate()
  const target = await located
  const url = new URL(call.path, target.base)
  const headers: Record<string, string> = { authorization: `Bearer ${await target.token()}` }
  if (call.body) headers['content-type'] = 'application/json'
  let res: Response
  let text: string
  try {
    res = await fetch(url, {
      method: call.method,
      headers,
      signal: AbortSignal.timeout(TIMEOUT_MS),
      ...(call.body ? { body: JSON.stringify(call.body) } : {}),
    })
    text = await res.text()
  } catch (err) {
    throw new Unreachable(
      [
        `admin: cannot reach ${url.href}: ${reason(err)}`,
        `  the URL came from ${target.from}; looked, in order, at:`,
        ...target.looked.map((l) => `    - ${l}`),
        '  Is the gateway running? Run this where it runs, with its DATA_DIR, or set ADMIN_URL.',
      ].join('\n'),
    )
  }
  let payload: { data?: unknown; error?: unknown }
  try {
    payload = JSON.parse(text) as typeof payload
  } catch {
    throw new Unreachable(
      `admin: ${url.href} answered ${res.status} with a body that is not JSON (not the admin API?)`,
    )
  }
  if (!res.ok) {
    process.stderr.write(`admin: ${call.method} ${url.href} answered ${res.status}\n`)
    process.stderr.write(`${JSON.stringify(payload.error ?? payload, null, 2)}\n`)
    return { ok: false }
  }
  return { ok: true, body: payload.data }
}

function helpText(help: Help): string {
  if (help === 'all') return USAGE
  return 'group' in help ? groupUsage(help.group) : commandUsage(help)
}

async function main(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv)
  if ('help' in parsed) {
    process.stdout.write(`${helpText(parsed.help)}\n`)
    return 0
  }
  return send(parsed.call)
}

// Ends once what was written has left: stdout and stderr are pipes when a script runs the CLI, and
// process.exit drops what is still buffered (a list of a few hundred workspaces was cut at 146 KB).
function exit(code: number): void {
  let pending = 2
  const done = () => {
    if (--pending === 0) process.exit(code)
  }
  process.stdout.write('', done)
  process.stderr.write('', done)
}

main(process.argv.slice(2)).then(
  (code) => exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      const usage = err.command ? commandUsage(err.command) : err.group ? groupUsage(err.group) : USAGE
      process.stderr.write(`admin: ${err.message}\n\n${usage}\n`)
      exit(2)
      return
    }
    if (err instanceof Unreachable) {
      process.stderr.write(`${err.message}\n`)
      exit(3)
      return
    }
    process.stderr.write(`admin: ${err instanceof Error ? err.message : String(err)}\n`)
    exit(3)
  },
)
