import { execFileSync } from 'node:child_process'
import { Gauge, type Registry } from 'prom-client'
import { VERSION } from '../lib/version.ts'

const ROOT = new URL('../../', import.meta.url).pathname

// The commit this process runs: ANVIL_COMMIT when set (the image has no .git: the Dockerfile passes it),
// else asked of git once for the process (a checkout: the code loaded is the commit checked out when it
// first asked, whatever git says later; a process that opens several runtimes, as the tests do, spawns
// git once), else "unknown".
let checkedOut: string | undefined
export function sourceCommit(configured: string | undefined): string {
  if (configured) return configured.toLowerCase()
  checkedOut ??= gitHead()
  return checkedOut
}

function gitHead(): string {
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2_000,
    }).trim()
    return /^[0-9a-f]{40}$/.test(out) ? out : 'unknown'
  } catch {
    return 'unknown'
  }
}

// anvil_build_info{version,node,commit} 1: the usual info metric, joined onto others with
// `* on (instance) group_left (version) anvil_build_info` to see which build misbehaves after a deploy.
export function registerBuildInfo(registry: Registry, commit: string): void {
  new Gauge({
    name: 'anvil_build_info',
    help: 'Always 1; the labels say which Anvil version, Node.js version and source commit this process runs',
    labelNames: ['version', 'node', 'commit'],
    registers: [registry],
  }).set({ version: VERSION, node: process.versions.node, commit }, 1)
}
