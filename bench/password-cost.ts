import { spawnSync } from 'node:child_process'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { PASSWORD_CAPS } from '../src/ops/password/caps.ts'
import { hashPassword } from '../src/ops/password/hash.ts'
import { passwordHashBody } from '../src/ops/password/schema.ts'
import { PASSWORD_CAP_NAMES, type PasswordCaps } from '../src/ops/password/types.ts'

// `node bench/password-cost.ts [--worst]`: what one password hash costs, in process, on this thread: wall
// and CPU milliseconds (the median of REPEATS; CPU counts OpenSSL's lane threads too) and the peak RSS it
// adds (a child process per case, its maxRSS less an idle child's). The caps and the per-tier memory
// budgets are sized from these figures (docs/decisions.md, "Password hashing: caps and memory"). With
// --worst it also runs each plan's most expensive request at its caps (minutes, gigabytes: a quiet machine
// only); without, it extrapolates them from the unit costs. Not in `npm run bench`: no gateway is involved.

const REPEATS = Number(process.env.BENCH_PASSWORD_REPEATS ?? 3)
const UNLIMITED = Object.fromEntries(
  PASSWORD_CAP_NAMES.map((n) => [n, Number.MAX_SAFE_INTEGER]),
) as PasswordCaps

type Case = { label: string; body: Record<string, unknown> }

const DEFAULTS: Case[] = [
  'argon2id',
  'argon2i',
  'argon2d',
  'scrypt',
  'bcrypt',
  'pbkdf2-sha256',
  'pbkdf2-sha512',
].map((algorithm) => ({ label: `${algorithm} at the default`, body: { algorithm } }))

// One unit of each algorithm's work, to extrapolate from (and a second point to show the scaling).
const UNITS: Case[] = [
  {
    label: 'argon2id m=64 MiB t=1 p=1',
    body: { algorithm: 'argon2id', params: { memory_kib: 65_536, iterations: 1 } },
  },
  {
    label: 'argon2id m=64 MiB t=2 p=1',
    body: { algorithm: 'argon2id', params: { memory_kib: 65_536, iterations: 2 } },
  },
  {
    label: 'argon2id m=64 MiB t=1 p=4',
    body: { algorithm: 'argon2id', params: { memory_kib: 65_536, iterations: 1, parallelism: 4 } },
  },
  { label: 'scrypt N=2^16 r=8 p=1 (64 MiB)', body: { algorithm: 'scrypt', params: { log2_n: 16 } } },
  {
    label: 'scrypt N=2^16 r=8 p=2 (64 MiB)',
    body: { algorithm: 'scrypt', params: { log2_n: 16, parallelism: 2 } },
  },
  { label: 'bcrypt cost 12', body: { algorithm: 'bcrypt', params: { cost: 12 } } },
  {
    label: 'pbkdf2-sha256 1M iterations',
    body: { algorithm: 'pbkdf2-sha256', params: { iterations: 1_000_000 } },
  },
  {
    label: 'pbkdf2-sha512 1M iterations',
    body: { algorithm: 'pbkdf2-sha512', params: { iterations: 1_000_000 } },
  },
]

const PLANS = ['free', 'pro', 'business'] as const

// Each plan's most expensive request per algorithm family: every cap at its maximum at once.
function worstCases(plan: (typeof PLANS)[number]): Case[] {
  const c = Object.fromEntries(Object.entries(PASSWORD_CAPS).map(([k, v]) => [k, v[plan]])) as PasswordCaps
  const scryptLogN = Math.log2(c.password_scrypt_n_r / 8)
  const scryptP = c.password_scrypt_n_r_p / c.password_scrypt_n_r
  return [
    {
      label: `${plan}: argon2id m=${c.password_argon2_memory_kib} t=${c.password_argon2_iterations} p=${c.password_argon2_parallelism}`,
      body: {
        algorithm: 'argon2id',
        params: {
          memory_kib: c.password_argon2_memory_kib,
          iterations: c.password_argon2_iterations,
          parallelism: c.password_argon2_parallelism,
        },
      },
    },
    {
      label: `${plan}: scrypt N=2^${scryptLogN} r=8 p=${scryptP}`,
      body: { algorithm: 'scrypt', params: { log2_n: scryptLogN, parallelism: scryptP } },
    },
    {
      label: `${plan}: bcrypt cost ${c.password_bcrypt_cost}`,
      body: { algorithm: 'bcrypt', params: { cost: c.password_bcrypt_cost } },
    },
    {
      label: `${plan}: pbkdf2-sha256 ${c.password_pbkdf2_iterations} iterations`,
      body: { algorithm: 'pbkdf2-sha256', params: { iterations: c.password_pbkdf2_iterations } },
    },
  ]
}

function once(body: Record<string, unknown>): { wall: number; cpu: number } {
  const parsed = passwordHashBody.parse({ password: 'correct horse battery staple', ...body })
  const cpu0 = process.cpuUsage()
  const started = performance.now()
  hashPassword(parsed, UNLIMITED)
  const wall = performance.now() - started
  const cpu = process.cpuUsage(cpu0)
  return { wall, cpu: (cpu.user + cpu.system) / 1000 }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

// The peak RSS one hash adds: a child that hashes once, against a child that only loads the module.
function peakMiB(body: Record<string, unknown> | undefined): number {
  const script = fileURLToPath(import.meta.url)
  const child = spawnSync(process.execPath, [script, '--child', JSON.stringify(body ?? null)], {
    encoding: 'utf8',
  })
  if (child.status !== 0) throw new Error(child.stderr)
  return Number(child.stdout.trim()) / 1024
}

function measure(cases: Case[]): { label: string; wall: number; cpu: number; mib: number }[] {
  const idle = peakMiB(undefined)
  return cases.map(({ label, body }) => {
    once(body)
    const runs = Array.from({ length: REPEATS }, () => once(body))
    const row = {
      label,
      wall: median(runs.map((r) => r.wall)),
      cpu: median(runs.map((r) => r.cpu)),
      mib: peakMiB(body) - idle,
    }
    console.log(`| ${row.label} | ${row.wall.toFixed(1)} | ${row.cpu.toFixed(1)} | ${row.mib.toFixed(1)} |`)
    return row
  })
}

if (process.argv[2] === '--child') {
  const body = JSON.parse(process.argv[3]!)
  if (body) once(body)
  console.log(process.resourceUsage().maxRSS)
} else {
  console.log(
    `load average ${(await import('node:os'))
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  )
  console.log('| case | wall ms | CPU ms | peak MiB added |\n|---|---|---|---|')
  measure(DEFAULTS)
  const units = measure(UNITS)
  const cpuOf = (label: string) => units.find((u) => u.label === label)!.cpu
  // CPU per unit: argon2 per MiB·pass, scrypt per MiB of 128·N·r·p, bcrypt per 2^cost,
  // PBKDF2 per million iterations of whichever digest costs more here
  const argon2PerMiBPass = cpuOf('argon2id m=64 MiB t=2 p=1') / (64 * 2)
  const scryptPerMiB = cpuOf('scrypt N=2^16 r=8 p=1 (64 MiB)') / 64
  const bcryptPerRound = cpuOf('bcrypt cost 12') / 2 ** 12
  const pbkdf2PerMillion = Math.max(
    cpuOf('pbkdf2-sha256 1M iterations'),
    cpuOf('pbkdf2-sha512 1M iterations'),
  )
  console.log('\nExtrapolated CPU ms of each plan’s most expensive request (every cap at its maximum):\n')
  console.log(
    '| plan | argon2 | scrypt | bcrypt | PBKDF2 (the dearer digest) | compute budget |\n|---|---|---|---|---|---|',
  )
  const budget = { free: 1_000, pro: 10_000, business: 30_000 }
  for (const plan of PLANS) {
    const c = Object.fromEntries(Object.entries(PASSWORD_CAPS).map(([k, v]) => [k, v[plan]])) as PasswordCaps
    const argon2 = argon2PerMiBPass * (c.password_argon2_memory_kib / 1024) * c.password_argon2_iterations
    const scrypt = (scryptPerMiB * (128 * c.password_scrypt_n_r_p)) / 2 ** 20
    const bcrypt = bcryptPerRound * 2 ** c.password_bcrypt_cost
    const pbkdf2 = (pbkdf2PerMillion * c.password_pbkdf2_iterations) / 1e6
    const cells = [argon2, scrypt, bcrypt, pbkdf2].map((ms) => ms.toFixed(0))
    console.log(`| ${plan} | ${cells.join(' | ')} | ${budget[plan]} |`)
  }
  if (process.argv.includes('--worst')) {
    console.log('\n| case | wall ms | CPU ms | peak MiB added |\n|---|---|---|---|')
    for (const plan of PLANS) measure(worstCases(plan))
  }
}
