import { readFileSync } from 'node:fs'
import { join, posix } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ROOT } from './dashboards.ts'
import { buildContext, contextCopies, dockerCmd, dockerWorkdir, imageFiles, runtimeFiles } from './image.ts'

// `docker build .` as the Docker client would send and build it, checked without a Docker engine: the
// context is the tree filtered by .dockerignore with Docker's own matching rules, every COPY source must be
// in it, and every file the gateway, the job worker and the admin CLI load or read at run time (found from
// their entry points, not listed here) must reach the image at the path the code resolves it from.

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin?: Record<string, string>
  scripts: Record<string, string>
  dependencies: Record<string, string>
}
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { image?: string; build?: unknown; command?: string[] }>
}

// The processes the image runs: its CMD, the commands compose gives services built from it, the CLI the
// operations guide runs inside a container (package.json's bin), and the npm scripts that start the same
// programs on a checkout.
function entryPoints(): string[] {
  const files = new Set<string>()
  const script = (words: string[]) => {
    const i = words.indexOf('node')
    if (i >= 0 && words[i + 1] && !words[i + 1]!.startsWith('-')) files.add(posix.normalize(words[i + 1]!))
  }
  script(dockerCmd(dockerfile))
  for (const s of Object.values(compose.services)) if (s.build && s.command) script(s.command)
  for (const bin of Object.values(pkg.bin ?? {})) files.add(posix.normalize(bin))
  for (const name of ['start', 'worker', 'admin'])
    if (pkg.scripts[name]) script(pkg.scripts[name]!.split(/\s+/))
  return [...files]
}

describe('the Docker build context', () => {
  const context = buildContext(ROOT)
  const copies = contextCopies(dockerfile)
  const image = imageFiles(copies, context)
  const workdir = dockerWorkdir(dockerfile)

  it('holds every COPY source (docker build fails on one it cannot find)', () => {
    expect(copies.length).toBeGreaterThan(0)
    expect(image.missing).toEqual([])
  })

  it('puts every file the processes load or read at run time into the image, where the code looks for it', () => {
    const entries = entryPoints()
    expect(entries).toEqual(
      expect.arrayContaining(['src/main/gateway.ts', 'src/main/job-worker.ts', 'src/main/admin-cli.ts']),
    )
    const runtime = runtimeFiles(ROOT, [...entries, 'package.json'])
    // the walk found the thread entries and the files read beside the code, not just the entry points
    expect([...runtime.files]).toEqual(
      expect.arrayContaining([
        'workers/entry.ts',
        'src/store/redis/consume.lua',
        'src/http/console/assets/console.css',
      ]),
    )
    expect([...runtime.files].some((f) => f.startsWith('docs/examples/'))).toBe(true)
    const problems: string[] = []
    for (const file of runtime.files) {
      if (!context.has(file)) problems.push(`${file}: not in the build context (.dockerignore)`)
      else if (image.files.get(posix.join(workdir, file)) !== file)
        problems.push(`${file}: not copied to ${posix.join(workdir, file)} (Dockerfile)`)
    }
    expect(problems).toEqual([])
    // npm ci --omit=dev installs only dependencies: every package the running code imports is one
    const notInstalled = [...runtime.packages].filter((p) => !(p in pkg.dependencies))
    expect(notInstalled).toEqual([])
  })

  it('keeps secrets, local data and development files out of it', () => {
    const leaked = [...context].filter((f) =>
      /^(\.git|\.data|\.ci|node_modules|test|bench|coverage)\/|^\.env|\.pem$|\.log$|(^|\/)admin-token\.json$/.test(
        f,
      ),
    )
    expect(leaked).toEqual([])
  })

  it('computes the context with Docker’s rules (root-anchored names, exceptions, * within one level)', async () => {
    const { mkdtemp, mkdir, writeFile, rm } = await import('node:fs/promises')
    const { tmpdir } = await import('node:os')
    const dir = await mkdtemp(join(tmpdir(), 'anvil-context-'))
    try {
      for (const f of ['docs/api.md', 'docs/examples/a.md', 'src/docs/b.ts', 'x.log', 'src/y.log', '.env']) {
        await mkdir(join(dir, posix.dirname(f)), { recursive: true })
        await writeFile(join(dir, f), '')
      }
      await writeFile(join(dir, '.dockerignore'), 'docs\n!docs/examples\n*.log\n.env\n')
      // `docs` is anchored at the root (gitignore's would match src/docs too); `*.log` only at the root
      expect([...buildContext(dir)].sort()).toEqual([
        '.dockerignore',
        'docs/examples/a.md',
        'src/docs/b.ts',
        'src/y.log',
      ])
      const { files, missing } = imageFiles(
        contextCopies('WORKDIR /app\nCOPY docs/examples ./docs/\nCOPY docs/api.md ./\n'),
        buildContext(dir),
      )
      expect(missing).toEqual(['docs/api.md'])
      expect([...files.keys()]).toEqual(['/app/docs/a.md'])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
