import { execFileSync, spawn } from 'node:child_process'
import { access, mkdtemp, readFile, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const ROOT = new URL('../../', import.meta.url).pathname

// A commit's tree extracted beside this one, to run its gateway in the same benchmark rounds as this
// tree's (BENCH_BASE_REF): what a change costs is measured against the code before it, on the same
// machine at the same moment, instead of against figures from another run.
export interface BaseTree {
  // the full commit id the ref named
  commit: string
  dir: string
  // absolute path of the tree's gateway entry (what its `npm start` runs)
  gateway: string
  remove(): Promise<void>
}

// The script `npm start` runs, from a package.json's start command: `node src/main/gateway.ts`, with or
// without environment assignments before it (`MALLOC_MMAP_THRESHOLD_=… node …`) or Node flags; older
// trees ran `node src/server.ts`.
export function startEntry(startCommand: string | undefined): string | undefined {
  return /(?:^|\s)node\s+(?:-\S+\s+)*([^\s;&|]+\.[cm]?[jt]s)(?=\s|$)/.exec(startCommand ?? '')?.[1]
}

function git(args: string[], cwd: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
}

// `git archive <commit> | tar -x -C <dir>`, without a shell (the ref is the operator's text)
function extract(commit: string, dir: string, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const archive = spawn('git', ['archive', '--format=tar', commit], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const tar = spawn('tar', ['-x', '-C', dir], { stdio: ['pipe', 'ignore', 'pipe'] })
    let errors = ''
    archive.stderr.on('data', (c: Buffer) => {
      errors += c.toString()
    })
    tar.stderr.on('data', (c: Buffer) => {
      errors += c.toString()
    })
    archive.stdout.pipe(tar.stdin)
    let pending = 2
    let failed = false
    const exited = (what: string) => (code: number | null) => {
      if (code !== 0 && !failed) {
        failed = true
        reject(new Error(`${what} exited with ${code}: ${errors.trim()}`))
      }
      if (--pending === 0 && !failed) resolve()
    }
    archive.on('error', reject)
    tar.on('error', reject)
    archive.on('exit', exited('git archive'))
    tar.on('exit', exited('tar'))
  })
}

// Extracts `ref` (a commit, tag, branch, HEAD~3…) of the repository at `root` into a scratch directory
// sharing this tree's node_modules. `git archive` rather than `git worktree add`: it only reads the
// repository (no worktree registered in a .git other checkouts share, nothing to prune if the run is
// killed: a directory under the system's temporary directory at worst). The base tree runs with the
// packages installed here: a base whose dependencies differ in a way that matters fails at its start.
export async function prepareBaseTree(ref: string, root = ROOT): Promise<BaseTree> {
  let commit: string
  try {
    commit = git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], root)
  } catch {
    throw new Error(`BENCH_BASE_REF=${ref}: no such commit in ${root}`)
  }
  const dir = await mkdtemp(join(tmpdir(), 'anvil-bench-base-'))
  const remove = () => rm(dir, { recursive: true, force: true })
  try {
    await extract(commit, dir, root)
    await symlink(join(root, 'node_modules'), join(dir, 'node_modules'))
    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>
    }
    const entry = startEntry(pkg.scripts?.start) ?? 'src/main/gateway.ts'
    const gateway = join(dir, entry)
    await access(gateway).catch(() => {
      throw new Error(`BENCH_BASE_REF=${ref}: ${commit.slice(0, 7)} has no gateway entry (${entry})`)
    })
    return { commit, dir, gateway, remove }
  } catch (err) {
    await remove()
    throw err
  }
}
