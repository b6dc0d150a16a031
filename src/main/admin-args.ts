import { parseCidr } from '../lib/cidr.ts'
import { closestName } from '../lib/did-you-mean.ts'
import { FAMILIES } from '../limits/families.ts'
import { PLAN_NAMES } from '../limits/plan-names.ts'

// The admin CLI's commands: each one's arguments are checked here, before anything is sent, so a typo is
// a message naming the flag rather than a request the server refuses (or, worse, accepts as null).
export class UsageError extends Error {
  // the command whose usage to print after the message (undefined: its group's, or the list of commands)
  readonly command: Command | undefined
  readonly group: string | undefined
  constructor(message: string, command?: Command, group?: string) {
    super(message)
    this.command = command
    this.group = group
  }
}

export interface Call {
  method: 'GET' | 'POST' | 'PATCH'
  path: string
  body?: Record<string, unknown>
  // a list the CLI pages through to the end (no --limit or --starting-after given): every item is printed
  pageAll?: boolean
  // what to tell the person on stderr about a successful answer, beside printing it
  note?: (data: unknown) => string | undefined
}

type Parse = (flag: string, raw: string) => unknown

interface Option {
  value: string
  help: string
  parse: Parse
}

export interface Command {
  name: string
  args: string[]
  summary: string
  options: Record<string, Option>
  build(args: string[], v: Record<string, unknown>): Call
}

const bad = (flag: string, raw: string, expected: string) =>
  new UsageError(`${flag}: expected ${expected}, got ${JSON.stringify(raw)}`)

function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER): Parse {
  return (flag, raw) => {
    const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw bad(
        flag,
        raw,
        max < Number.MAX_SAFE_INTEGER ? `a whole number from ${min} to ${max}` : `a whole number ≥ ${min}`,
      )
    }
    return n
  }
}
function oneOf(values: readonly string[]): Parse {
  return (flag, raw) => {
    if (!values.includes(raw)) throw bad(flag, raw, `one of ${values.join(', ')}`)
    return raw
  }
}
function listOf(item: (flag: string, raw: string) => unknown): Parse {
  return (flag, raw) => {
    const items = raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    if (items.length === 0) throw bad(flag, raw, 'a comma-separated list')
    return items.map((i) => item(flag, i))
  }
}
const text: Parse = (flag, raw) => {
  const s = raw.trim()
  if (s === '' || s.length > 100) throw bad(flag, raw, '1 to 100 characters')
  return s
}
const isoDate: Parse = (flag, raw) => {
  if (
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(raw) ||
    Number.isNaN(Date.parse(raw))
  )
    throw bad(flag, raw, 'an ISO 8601 date-time with an offset, e.g. 2027-01-31T00:00:00Z')
  return raw
}
const month: Parse = (flag, raw) => {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(raw)) throw bad(flag, raw, 'a month as YYYY-MM')
  return raw
}
const cidr: Parse = (flag, raw) => {
  if (parseCidr(raw) === undefined) throw bad(flag, raw, 'an IPv4/IPv6 address or CIDR, e.g. 10.0.0.0/8')
  return raw
}

const LIMITS = {
  'monthly-quota': {
    value: 'N',
    help: 'requests per UTC month',
    parse: wholeNumber(0),
    field: 'monthly_quota',
  },
  'key-rate': {
    value: 'N',
    help: 'requests per second per key',
    parse: wholeNumber(1),
    field: 'key_rate_per_second',
  },
  'workspace-rate': {
    value: 'N',
    help: 'requests per second per workspace',
    parse: wholeNumber(1),
    field: 'workspace_rate_per_second',
  },
  'max-json-bytes': { value: 'N', help: 'largest JSON body', parse: wholeNumber(1), field: 'max_json_bytes' },
  'max-binary-bytes': {
    value: 'N',
    help: 'largest binary body',
    parse: wholeNumber(1),
    field: 'max_binary_bytes',
  },
  'compute-budget-ms': {
    value: 'N',
    help: 'compute budget per request',
    parse: wholeNumber(1),
    field: 'compute_budget_ms',
  },
  'max-keys': {
    value: 'N',
    help: 'live keys the workspace may hold',
    parse: wholeNumber(0),
    field: 'max_keys',
  },
  'max-projects': {
    value: 'N',
    help: 'projects the workspace may hold',
    parse: wholeNumber(0),
    field: 'max_projects',
  },
  'max-environments': {
    value: 'N',
    help: 'environments across its projects',
    parse: wholeNumber(0),
    field: 'max_environments',
  },
  'max-jobs-in-flight': {
    value: 'N',
    help: 'jobs queued or running at once',
    parse: wholeNumber(0),
    field: 'max_jobs_in_flight',
  },
  'max-job-result-bytes': {
    value: 'N',
    help: 'largest job result it may store',
    parse: wholeNumber(1),
    field: 'max_job_result_bytes',
  },
  'max-job-storage-bytes': {
    value: 'N',
    help: 'bytes all its jobs may keep (inputs, results, records)',
    parse: wholeNumber(0),
    field: 'max_job_storage_bytes',
  },
} as const

const seg = (s: string) => encodeURIComponent(s)

const PAGING = {
  limit: { value: 'N', help: 'one page of N items (1–100); default: every item', parse: wholeNumber(1, 100) },
  'starting-after': {
    value: 'ID',
    help: 'the page after this id (the last of the previous page)',
    parse: text,
  },
} as const

// A list call: one page when asked for (--limit, --starting-after), otherwise every page in turn.
function listCall(path: string, query: Record<string, string>, v: Record<string, unknown>): Call {
  const params = new URLSearchParams(query)
  if (v.limit !== undefined) params.set('limit', String(v.limit))
  if (v['starting-after'] !== undefined) params.set('starting_after', String(v['starting-after']))
  const q = params.toString()
  const pageAll = v.limit === undefined && v['starting-after'] === undefined
  return { method: 'GET', path: q ? `${path}?${q}` : path, pageAll }
}

export const COMMANDS: Command[] = [
  {
    name: 'workspaces list',
    args: [],
    summary: 'List workspaces, newest first (every one, or one page with --limit)',
    options: { ...PAGING },
    build: (_args, v) => listCall('/admin/workspaces', {}, v),
  },
  {
    name: 'workspaces create',
    args: [],
    summary: 'Create a workspace',
    options: {
      name: { value: 'NAME', help: 'its name (required)', parse: text },
      plan: { value: PLAN_NAMES.join('|'), help: 'its plan (default free)', parse: oneOf(PLAN_NAMES) },
    },
    build(_args, v) {
      if (v.name === undefined) throw new UsageError('--name is required')
      return { method: 'POST', path: '/admin/workspaces', body: { name: v.name, plan: v.plan } }
    },
  },
  {
    name: 'workspaces get',
    args: ['workspace_id'],
    summary: 'Show a workspace, its plan, overrides and effective limits',
    options: {},
    build: ([id]) => ({ method: 'GET', path: `/admin/workspaces/${seg(id!)}` }),
  },
  {
    name: 'workspaces update',
    args: ['workspace_id'],
    summary: "Change a workspace's plan and per-workspace limit overrides",
    options: {
      plan: { value: PLAN_NAMES.join('|'), help: 'the new plan', parse: oneOf(PLAN_NAMES) },
      ...LIMITS,
    },
    build([id], v) {
      const overrides = Object.fromEntries(
        Object.entries(LIMITS)
          .filter(([flag]) => v[flag] !== undefined)
          .map(([flag, o]) => [o.field, v[flag]]),
      )
      const body: Record<string, unknown> = {}
      if (v.plan !== undefined) body.plan = v.plan
      if (Object.keys(overrides).length > 0) body.overrides = overrides
      if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give --plan or a limit')
      return { method: 'PATCH', path: `/admin/workspaces/${seg(id!)}`, body }
    },
  },
  {
    name: 'usage',
    args: ['workspace_id'],
    summary: "A month's requests and refusals, per workspace and per key",
    options: { month: { value: 'YYYY-MM', help: 'the month (default: this one, UTC)', parse: month } },
    build([id], v) {
      const q = v.month === undefined ? '' : `?month=${v.month}`
      return { method: 'GET', path: `/admin/workspaces/${seg(id!)}/usage${q}` }
    },
  },
  {
    name: 'projects list',
    args: ['workspace_id'],
    summary: "List a workspace's projects with their environments, newest first",
    options: { ...PAGING },
    build: ([id], v) => listCall(`/admin/workspaces/${seg(id!)}/projects`, {}, v),
  },
  {
    name: 'projects create',
    args: ['workspace_id'],
    summary: 'Create a project in a workspace',
    options: { name: { value: 'NAME', help: 'its name, unique in the workspace (required)', parse: text } },
    build([id], v) {
      if (v.name === undefined) throw new UsageError('--name is required')
      return { method: 'POST', path: `/admin/workspaces/${seg(id!)}/projects`, body: { name: v.name } }
    },
  },
  {
    name: 'environments list',
    args: ['workspace_id', 'project_id'],
    summary: "List a project's environments, newest first",
    options: { ...PAGING },
    build: ([ws, project], v) =>
      listCall(`/admin/workspaces/${seg(ws!)}/projects/${seg(project!)}/environments`, {}, v),
  },
  {
    name: 'environments create',
    args: ['workspace_id', 'project_id'],
    summary: 'Create an environment in a project (live or test mode)',
    options: {
      name: { value: 'NAME', help: 'its name, unique in the project (required)', parse: text },
      mode: {
        value: 'live|test',
        help: 'its keys\' mode (default: live if named "production", else test, as keys create does)',
        parse: oneOf(['live', 'test']),
      },
    },
    build([ws, project], v) {
      if (v.name === undefined) throw new UsageError('--name is required')
      const mode = v.mode ?? (v.name === 'production' ? 'live' : 'test')
      const path = `/admin/workspaces/${seg(ws!)}/projects/${seg(project!)}/environments`
      return { method: 'POST', path, body: { name: v.name, mode } }
    },
  },
  {
    name: 'keys list',
    args: ['workspace_id'],
    summary: "List a workspace's keys, newest first (prefixes and scope, never the keys)",
    options: { ...PAGING },
    build: ([id], v) => listCall('/admin/keys', { workspace_id: id! }, v),
  },
  {
    name: 'keys create',
    args: [],
    summary: 'Create an API key (printed once)',
    options: {
      workspace: { value: 'WORKSPACE_ID', help: 'the workspace (required)', parse: text },
      project: { value: 'NAME', help: 'project (default "default")', parse: text },
      environment: {
        value: 'NAME',
        help: 'environment (default "production"); a new one is created, live if named "production", else test mode',
        parse: text,
      },
      mode: {
        value: 'live|test',
        help: 'key mode (default: the environment’s; for a new environment, as --environment says)',
        parse: oneOf(['live', 'test']),
      },
      name: { value: 'NAME', help: 'a label', parse: text },
      families: {
        value: 'F,F,...',
        help: `endpoint families the key may call: ${FAMILIES.join(', ')}`,
        parse: listOf(oneOf(FAMILIES)),
      },
      'expires-at': { value: 'ISO-8601', help: 'expiry, e.g. 2027-01-31T00:00:00Z', parse: isoDate },
      cidr: { value: 'CIDR,...', help: 'source addresses allowed, e.g. 10.0.0.0/8', parse: listOf(cidr) },
      'monthly-quota': { value: 'N', help: "the key's own monthly quota", parse: wholeNumber(0) },
    },
    build(_args, v) {
      if (v.workspace === undefined) throw new UsageError('--workspace is required')
      const body = {
        workspace_id: v.workspace,
        project: v.project,
        environment: v.environment,
        mode: v.mode,
        name: v.name,
        families: v.families,
        expires_at: v['expires-at'],
        allowed_cidrs: v.cidr,
        monthly_quota: v['monthly-quota'],
      }
      const environment = v.environment ?? 'production'
      // the mode follows the environment, which a person may not expect of "staging": say so
      const note = (data: unknown) =>
        v.mode === undefined && (data as { key?: string }).key?.startsWith('anvil_test_')
          ? `admin: a test-mode key (anvil_test_…): environment "${environment}" is in test mode (environments other than "production" are created in test mode; --mode live with a new environment name makes a live one)`
          : undefined
      return { method: 'POST', path: '/admin/keys', body, note }
    },
  },
  {
    name: 'keys revoke',
    args: ['key_id'],
    summary: 'Revoke a key now (every gateway within a second)',
    options: {},
    build: ([id]) => ({ method: 'POST', path: `/admin/keys/${seg(id!)}/revoke` }),
  },
  {
    name: 'keys rotate',
    args: ['key_id'],
    summary: 'Issue a replacement key; the old one lives for the grace period',
    options: {
      'grace-seconds': {
        value: 'N',
        help: 'how long the old key keeps working (default 86400; 0 = revoke now)',
        parse: wholeNumber(0, 30 * 86_400),
      },
    },
    build([id], v) {
      const body = v['grace-seconds'] === undefined ? {} : { grace_seconds: v['grace-seconds'] }
      return { method: 'POST', path: `/admin/keys/${seg(id!)}/rotate`, body }
    },
  },
]

export function commandUsage(c: Command): string {
  const flags = Object.entries(c.options)
  const lines = [
    `Usage: anvil-admin ${c.name}${c.args.map((a) => ` <${a}>`).join('')}${flags.length ? ' [options]' : ''}`,
    '',
    c.summary,
  ]
  if (flags.length > 0) {
    lines.push('', 'Options:')
    const left = flags.map(([flag, o]) => `  --${flag} ${o.value}`)
    const width = Math.max(...left.map((l) => l.length)) + 2
    flags.forEach(([, o], i) => {
      lines.push(`${left[i]!.padEnd(width)}${o.help}`)
    })
  }
  return lines.join('\n')
}

export const USAGE = `Usage: anvil-admin <command> [arguments] [options]   (or: npm run admin -- <command> ...)

Commands:
${COMMANDS.map((c) => `  ${`${c.name}${c.args.map((a) => ` <${a}>`).join('')}`.padEnd(44)}${c.summary}`).join('\n')}

Run \`anvil-admin <command> --help\` for a command's options, \`anvil-admin keys --help\` for a group's commands.

Finding the gateway: ADMIN_URL, else http://ADMIN_HOST:ADMIN_PORT when either is set (loopback when
ADMIN_HOST is 0.0.0.0 or ::), else the URL the gateway recorded in DATA_DIR/admin-listener.json when it
started (DATA_DIR default ./.data: run the CLI where the gateway runs, with the same DATA_DIR), else
http://127.0.0.1:9464. ADMIN_TOKEN, else the token saved in DATA_DIR/admin-token.json at first start.

Exit status: 0 done; 1 the server refused (its error on stderr); 2 bad arguments or no admin token;
3 the server could not be reached or did not answer in time.`

// The commands of a group ("keys"): its usage, as `anvil-admin keys --help` prints it.
export const GROUPS = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]!))].filter((g) =>
  COMMANDS.some((c) => c.name.startsWith(`${g} `)),
)

const signature = (c: Command) => `${c.name}${c.args.map((a) => ` <${a}>`).join('')}`

export function groupUsage(group: string): string {
  const commands = COMMANDS.filter((c) => c.name.startsWith(`${group} `))
  return [
    `Usage: anvil-admin ${group} <command> [arguments] [options]`,
    '',
    'Commands:',
    ...commands.map((c) => `  ${signature(c).padEnd(34)}${c.summary}`),
    '',
    `Run \`anvil-admin ${group} <command> --help\` for a command's options.`,
  ].join('\n')
}

// What an unknown command most likely meant: a command one or two edits away ("workspace list",
// "keys craete"), else, for a group's name with an unknown command after it, the group's commands.
function unknownCommand(words: string[]): UsageError {
  const typed = words.join(' ')
  const two = words.slice(0, 2).join(' ')
  const closest =
    (words.length >= 2
      ? closestName(
          two,
          COMMANDS.map((c) => c.name).filter((n) => n.includes(' ')),
        )
      : undefined) ??
    closestName(words[0]!, [...GROUPS, ...COMMANDS.map((c) => c.name).filter((n) => !n.includes(' '))])
  if (closest !== undefined && GROUPS.includes(closest) && words.length === 1)
    return new UsageError(`unknown command: ${typed} (did you mean "${closest}"?)`, undefined, closest)
  if (closest !== undefined && !GROUPS.includes(closest))
    return new UsageError(`unknown command: ${typed} (did you mean "${closest}"?)`)
  const group =
    GROUPS.find((g) => g === words[0]) ?? (closest && GROUPS.includes(closest) ? closest : undefined)
  if (group !== undefined) {
    const names = COMMANDS.filter((c) => c.name.startsWith(`${group} `)).map((c) => c.name)
    return new UsageError(
      `unknown command: ${typed}; the ${group} commands are ${names.join(', ')}`,
      undefined,
      group,
    )
  }
  return new UsageError(`unknown command: ${typed}`)
}

export type Help = Command | 'all' | { group: string }

// "keys create --families hash,jwt" → the command and its checked values, or a UsageError.
export function parseCommand(argv: string[]): { command: Command; call: Call } | { help: Help } {
  const words: string[] = []
  let i = 0
  while (i < argv.length && !argv[i]!.startsWith('-')) words.push(argv[i++]!)
  const command =
    COMMANDS.find((c) => c.name === words.slice(0, 2).join(' ')) ?? COMMANDS.find((c) => c.name === words[0])
  const rest = argv.slice(i)
  const wantsHelp = rest.includes('--help') || rest.includes('-h')
  if (!command) {
    if (words.length === 0 && wantsHelp) return { help: 'all' }
    if (words.length === 0) throw new UsageError('no command given')
    // a group's name alone: its commands (to stdout when asked for, else as the usage of a mistake)
    if (words.length === 1 && GROUPS.includes(words[0]!)) {
      if (wantsHelp) return { help: { group: words[0]! } }
      throw new UsageError(
        `${words[0]}: which one? (a command follows the group's name)`,
        undefined,
        words[0],
      )
    }
    throw unknownCommand(words)
  }
  if (wantsHelp) return { help: command }
  const args = words.slice(command.name.split(' ').length)
  const values: Record<string, unknown> = {}
  for (let j = 0; j < rest.length; j++) {
    const token = rest[j]!
    if (!token.startsWith('--')) {
      args.push(token)
      continue
    }
    const eq = token.indexOf('=')
    const flag = eq === -1 ? token.slice(2) : token.slice(2, eq)
    const option = command.options[flag]
    if (!option) {
      const closest = closestName(flag, Object.keys(command.options))
      const hint = closest === undefined ? '' : ` (did you mean --${closest}?)`
      throw new UsageError(`${command.name}: unknown option --${flag}${hint}`, command)
    }
    const raw = eq === -1 ? rest[++j] : token.slice(eq + 1)
    if (raw === undefined || (eq === -1 && raw.startsWith('--'))) {
      throw new UsageError(`--${flag}: a value is required (${option.value})`, command)
    }
    if (flag in values) throw new UsageError(`--${flag} is given twice`, command)
    try {
      values[flag] = option.parse(`--${flag}`, raw)
    } catch (err) {
      if (err instanceof UsageError) throw new UsageError(err.message, command)
      throw err
    }
  }
  if (args.length !== command.args.length) {
    const expected = command.args.length === 0 ? 'no arguments' : command.args.map((a) => `<${a}>`).join(' ')
    throw new UsageError(
      `${command.name}: expected ${expected}, got ${args.length ? args.join(' ') : 'none'}`,
      command,
    )
  }
  try {
    return { command, call: command.build(args, values) }
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(err.message, command)
    throw err
  }
}
