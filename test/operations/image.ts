import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join, posix } from 'node:path'
import dockerignore from '@balena/dockerignore'

// the package is CommonJS (`module.exports = factory`) with typings that declare an ES default export
const ignore = dockerignore as unknown as typeof dockerignore.default

// What `docker build .` would see and build, computed without a Docker engine: the build context (the tree
// filtered by .dockerignore, with Docker's own matching rules: @balena/dockerignore is a port of Moby's
// matcher, see docs/decisions.md), the files each COPY puts into the image, and the files the processes
// read at run time, found from their entry points rather than listed by hand.

export interface DockerInstruction {
  keyword: string
  args: string
}

// Instructions, with `\` line continuations joined and comments dropped
export function dockerInstructions(dockerfile: string): DockerInstruction[] {
  const out: DockerInstruction[] = []
  let pending = ''
  for (const raw of dockerfile.split('\n')) {
    const line = raw.trimEnd()
    if (pending === '' && (line.trim() === '' || line.trimStart().startsWith('#'))) continue
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `
      continue
    }
    const whole = (pending + line).trim()
    pending = ''
    const m = /^(\w+)\s+([\s\S]*)$/.exec(whole)
    if (m) out.push({ keyword: m[1]!.toUpperCase(), args: m[2]! })
  }
  return out
}

export interface CopyFromContext {
  sources: string[]
  dest: string // absolute, in the image
}

// COPY instructions that read the build context (not `--from` another stage), with WORKDIR applied
export function contextCopies(dockerfile: string): CopyFromContext[] {
  const out: CopyFromContext[] = []
  let workdir = '/'
  for (const { keyword, args } of dockerInstructions(dockerfile)) {
    if (keyword === 'FROM') workdir = '/'
    if (keyword === 'WORKDIR') workdir = posix.resolve(workdir, args.trim())
    if (keyword !== 'COPY' && keyword !== 'ADD') continue
    let words: string[]
    if (args.trim().startsWith('[')) words = JSON.parse(args) as string[]
    else words = args.trim().split(/\s+/)
    if (words.some((w) => w.startsWith('--from'))) continue
    words = words.filter((w) => !w.startsWith('--'))
    const dest = words.at(-1)!
    const resolved = posix.resolve(workdir, dest) + (dest.endsWith('/') ? '/' : '')
    out.push({ sources: words.slice(0, -1), dest: resolved })
  }
  return out
}

// The exec-form CMD of the final stage: ["node", "src/main/gateway.ts"]
export function dockerCmd(dockerfile: string): string[] {
  const cmd = dockerInstructions(dockerfile)
    .filter((i) => i.keyword === 'CMD')
    .at(-1)
  if (!cmd) throw new Error('the Dockerfile has no CMD')
  return JSON.parse(cmd.args) as string[]
}

export function dockerWorkdir(dockerfile: string): string {
  let workdir = '/'
  for (const { keyword, args } of dockerInstructions(dockerfile)) {
    if (keyword === 'FROM') workdir = '/'
    if (keyword === 'WORKDIR') workdir = posix.resolve(workdir, args.trim())
  }
  return workdir
}

// Every file of the build context, repository-relative: the tree walked as the Docker client walks it, an
// excluded directory skipped unless an exception (`!…`) could bring something under it back.
export function buildContext(root: string): Set<string> {
  const patterns = existsSync(join(root, '.dockerignore'))
    ? readFileSync(join(root, '.dockerignore'), 'utf8').split('\n')
    : []
  const ig = ignore().add(patterns)
  const exceptions = patterns
    .map((p) => p.trim())
    .filter((p) => p.startsWith('!'))
    .map((p) => p.slice(1).replace(/^\/+/, ''))
  const mayReinclude = (dir: string) =>
    exceptions.some((e) => e.startsWith(`${dir}/`) || /^[*?[]/.test(e) || e.startsWith('**'))
  const files = new Set<string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`
      if (entry.isDirectory()) {
        if (ig.ignores(path) && !mayReinclude(path)) continue
        walk(path)
      } else if (!ig.ignores(path)) files.add(path)
    }
  }
  walk('')
  return files
}

// The files COPY puts into the image (absolute image paths) → where each came from in the context. A
// source that matches nothing in the context is reported, as `docker build` would fail on it.
export function imageFiles(
  copies: CopyFromContext[],
  context: Set<string>,
): { files: Map<string, string>; missing: string[] } {
  const files = new Map<string, string>()
  const missing: string[] = []
  for (const { sources, dest } of copies) {
    for (const raw of sources) {
      if (/[*?[]/.test(raw)) throw new Error(`COPY ${raw}: wildcards are not supported by this check`)
      const source = posix
        .normalize(raw)
        .replace(/^\.\/?/, '')
        .replace(/\/$/, '')
      const under = [...context].filter((f) => source === '' || f === source || f.startsWith(`${source}/`))
      if (under.length === 0) missing.push(raw)
      for (const f of under) {
        const target =
          f === source
            ? dest.endsWith('/') || sources.length > 1
              ? posix.join(dest, posix.basename(f))
              : dest
            : posix.join(dest, source === '' ? f : f.slice(source.length + 1))
        files.set(target, f)
      }
    }
  }
  return { files, missing }
}

// Static imports and `export … from`, `import()` with a literal, and `new URL('…', import.meta.url)` (a
// literal, or a template's literal head such as `./assets/${name}`). `import type`/`export type` are
// erased by type stripping, so they are not run-time dependencies.
const REFERENCE =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"\n]+)['"]|import\(\s*['"]([^'"\n]+)['"]\s*\)|new URL\(\s*(?:['"]([^'"\n]+)['"]|`([^`$\n]*)\$\{)/g

export interface RuntimeFiles {
  // repository-relative files the processes load or read
  files: Set<string>
  // npm packages the loaded code imports (by package name)
  packages: Set<string>
}

// From the entry points, everything the processes load or read at run time: the code reached by imports,
// the files and directories it names with `new URL(…, import.meta.url)` (a directory: every file in it),
// and the other files beside loaded code (a Lua script read by a computed name). A reference made only of
// `./` and `../` (a checkout's root, used as a working directory) names no file to read.
export function runtimeFiles(root: string, entries: string[]): RuntimeFiles {
  const files = new Set<string>()
  const packages = new Set<string>()
  const builtins = new Set(builtinModules)
  const queue = [...entries]
  const addTree = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = posix.join(dir, entry.name)
      if (entry.isDirectory()) addTree(path)
      else queue.push(path)
    }
  }
  const seenDirs = new Set<string>()
  while (queue.length > 0) {
    const file = queue.shift()!
    if (files.has(file)) continue
    files.add(file)
    if (!existsSync(join(root, file))) continue
    if (!/\.[cm]?[jt]s$/.test(file)) continue
    const dir = posix.dirname(file)
    if (!seenDirs.has(dir)) {
      seenDirs.add(dir)
      for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
        if (entry.isFile() && !entry.name.endsWith('.ts')) queue.push(posix.join(dir, entry.name))
      }
    }
    const text = readFileSync(join(root, file), 'utf8')
    for (const m of text.matchAll(REFERENCE)) {
      if (m[2] !== undefined) continue
      const spec = m[3] ?? m[4]
      const url = m[5] ?? m[6]
      if (spec !== undefined) {
        if (spec.startsWith('.')) queue.push(posix.normalize(posix.join(dir, spec)))
        else if (spec.startsWith('#')) queue.push(resolveImportMap(root, spec))
        else if (!spec.startsWith('node:') && !builtins.has(spec)) packages.add(packageName(spec))
      } else if (url !== undefined) {
        if (/^(\.\.?\/)*\.{0,2}$/.test(url)) continue
        const target = posix.normalize(posix.join(dir, url))
        if (
          url.endsWith('/') ||
          (existsSync(join(root, target)) && statSync(join(root, target)).isDirectory())
        )
          addTree(target.replace(/\/$/, ''))
        else queue.push(target)
      }
    }
  }
  return { files, packages }
}

function packageName(spec: string): string {
  const parts = spec.split('/')
  return spec.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!
}

// package.json "imports" ({"#src/*": "./src/*"})
function resolveImportMap(root: string, spec: string): string {
  const map = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { imports?: Record<string, string> }
  ).imports
  for (const [pattern, target] of Object.entries(map ?? {})) {
    const [head, tail = ''] = pattern.split('*')
    if (spec.startsWith(head!) && spec.endsWith(tail)) {
      const star = spec.slice(head!.length, spec.length - tail.length)
      return posix.normalize(target.replace('*', star))
    }
  }
  throw new Error(`import ${spec} matches nothing in package.json "imports"`)
}
