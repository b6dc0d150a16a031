import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// Docs that name code are checked by tests: every path, function and code identifier a page of docs/ (and
// the README) cites in backticks must exist, so a rename or a removal that leaves a page behind fails here.
// What is cited:
// - a repo path (`src/exec/submit.ts`, `workers/`, `test/docs/names.test.ts`, in backticks or anywhere in
//   a fenced block): the file or folder exists;
// - a file name or a tail of a path (`stream-digest.ts`, `json/diff/hash.ts`, `hash/`): some file or
//   folder of the repository ends with it;
// - a function (`submit()`, `pools.pick(workspace, tier)`): its name is declared in the code;
// - an identifier (`POOL_FAILURES`, `inlineUpTo`, `request.execution`, `budget_ms`, `ERR_OVERLOADED`): it
//   appears, as a whole word, in the code or the operator's files.
// Backticks are for names that exist: a former name is written without them. Not checked: placeholders
// (`<family>`, `*`, `{a,b}`), shell variables and name fragments (`$ANVIL_KEY`, `_TTL_MS`, `ws_`), Redis
// commands (`MONITOR`), files of a data directory (`DATA_DIR/...`, `store.json`), generated output (the
// .gitignore'd folders), and the few names of other code bases the docs cite (EXTERNAL).

const ROOT = new URL('../../', import.meta.url).pathname
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter(Boolean)
const dirs = new Set(
  files.flatMap((f) =>
    f
      .split('/')
      .slice(0, -1)
      .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
  ),
)
const ROOTS = /^(src|workers|test|bench|scripts|docs|grafana|prometheus|alertmanager|deploy)\//
// where code identifiers live: the sources, scripts and benches, and the operator's files
const CODE = files.filter(
  (f) =>
    /^(src|workers|scripts|bench)\/.*\.(ts|lua)$/.test(f) ||
    /^(prometheus|alertmanager|grafana|deploy)\//.test(f) ||
    ['docker-compose.yml', 'Dockerfile', 'package.json', '.dockerignore'].includes(f),
)
const corpus = CODE.map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n')
const words = new Set(corpus.match(/[A-Za-z_$][\w$]*/g))
// names used as a member somewhere: read (`.name`) or declared (`name:`, `name?:`, `name(`, `name =`)
const members = new Set(
  [...corpus.matchAll(/\.([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)\??\s*(?::|\(|=[^=>])/g)].map(
    (m) => m[1] ?? m[2]!,
  ),
)

// A dotted name (`request.execution`, `StreamStep.answer`, `pools.pick`) is a member of something that
// exists: every part is a name of the code, and the last is used or declared as a member; or it is written
// so in the code (a span or attribute name in a string).
function dottedExists(name: string): boolean {
  const parts = name.split('.')
  if (parts.length > 1 && corpus.includes(name)) return true
  return parts.every((part) => words.has(part)) && (parts.length === 1 || members.has(parts.at(-1)!))
}
const DOCS = [...files.filter((f) => /^docs\/[^/]+\.md$/.test(f)), 'README.md']
// generated output, never committed (bench/results/, test/artifacts/)
const GENERATED = readFileSync(join(ROOT, '.gitignore'), 'utf8')
  .split('\n')
  .filter((l) => ROOTS.test(l))
// names of other code bases (Node, Fastify, prom-client, OpenTelemetry, the generated SDK) and the
// shell variables the README's and docs' examples set
const EXTERNAL = new Set([
  'onClose',
  'syncBuiltinESMExports',
  'deflateSync',
  'syncThreshold',
  'nodejs_gc_duration_seconds',
  'NODE_COMPILE_CACHE',
  'http.response.status_code',
  'user_agent.original',
  'HashRequest',
  'ANVIL_KEY',
  'KEY_ID',
  'JOB_ID',
  // Redis INFO's
  'used_memory',
  // options of the parsers data/convert was measured against (yaml, smol-toml)
  'intAsBigInt',
  'integersAsBigInt',
  // Node's zlib, which compression's decisions compare with
  'zstdDecompressSync',
  // vitest's, which decides where a test file runs (vitest.config.ts)
  'vi.mock',
  // Node's, which the shared test process's leak check counts (test/setup/leaks.ts)
  'process.getActiveResourcesInfo()',
  // Linux's and Fastify's, in perf's reading of a small request (docs/dispatch.md)
  'tcp_write_xmit',
  'net_rx_action',
  'sock_def_readable',
  'pvm_irq_enable',
  'hookIterator',
  'routeHandler',
  // Fastify's and Node's, among the callers of V8's megamorphic handlers (docs/dispatch.md, "The process")
  'Reply.header',
  'util.deprecate',
  'preRouting',
  // V8's inline-cache builtins, as callgrind names them (docs/dispatch.md, "Instructions a request")
  'LoadIC',
  'KeyedLoadIC_Megamorphic',
  'KeyedStoreIC_Megamorphic',
  'LoadIC_Megamorphic',
  // jsondiffpatch's, in V8's trace of the 100k diff (docs/dispatch.md, "The heavy path")
  'collectChildrenDiffFilter',
])

const placeholder = (s: string) => /[<>*{}\s[\]|]/.test(s)

function pathExists(path: string): boolean {
  const bare = path.replace(/[#:].*$/, '').replace(/\/$/, '')
  return files.includes(bare) || dirs.has(bare)
}

function tailExists(tail: string): boolean {
  const bare = tail.replace(/#.*$/, '').replace(/\/$/, '')
  return (
    files.some((f) => f === bare || f.endsWith(`/${bare}`)) ||
    [...dirs].some((d) => d.endsWith(`/${bare}`) || d === bare)
  )
}

// What a backticked span cites, and whether it exists; undefined when it is not a name of ours.
function check(span: string): string | undefined {
  const s = span.trim()
  if (s.length === 0 || (s.includes(' ') && !/^[\w.$]+\(.*\)$/.test(s))) return undefined
  if (EXTERNAL.has(s) || /^[$_]|_$|^[A-Z]+$|^[A-Z][A-Z_]*\//.test(s)) return undefined
  if (ROOTS.test(s)) {
    if (placeholder(s) || GENERATED.some((g) => s.startsWith(g))) return undefined
    return pathExists(s) ? undefined : `path ${s}`
  }
  if (/^[\w.-]+(\/[\w.-]+)*\/?$/.test(s) && (/\.(ts|lua|md|ya?ml|css)$/.test(s) || s.endsWith('/'))) {
    return tailExists(s) ? undefined : `file ${s}`
  }
  const call = /^((?:[\w$]+\.)*[A-Za-z_$][\w$]*)\(.*\)$/.exec(s)
  if (call) return dottedExists(call[1]!) ? undefined : `function ${s}`
  // identifiers that can only be code: CONSTANT_CASE, camelCase, PascalCase, snake_case, dotted
  if (/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(s) && /[A-Z_.]/.test(s.slice(1))) {
    return dottedExists(s) ? undefined : `identifier ${s}`
  }
  return undefined
}

function citations(doc: string): { line: number; span: string }[] {
  const out: { line: number; span: string }[] = []
  let fenced = false
  for (const [i, line] of doc.split('\n').entries()) {
    if (line.trimStart().startsWith('```')) {
      fenced = !fenced
      continue
    }
    if (fenced) {
      // a diagram or an example: only full repo paths are taken for names
      for (const m of line.matchAll(/(?<![\w./-])((?:src|workers)\/[\w./-]*[\w/])/g))
        out.push({ line: i + 1, span: m[1]! })
      continue
    }
    for (const m of line.matchAll(/`([^`]+)`/g)) out.push({ line: i + 1, span: m[1]! })
  }
  return out
}

describe('docs name only what exists', () => {
  it.each(DOCS)('%s', (doc) => {
    const missing = citations(readFileSync(join(ROOT, doc), 'utf8'))
      .map(({ line, span }) => {
        const what = check(span)
        return what && `${doc}:${line}: ${what}`
      })
      .filter(Boolean)
    expect(missing).toEqual([])
  })

  it('catches what no longer exists', () => {
    expect(check('src/exec/op-thread.ts')).toBe('path src/exec/op-thread.ts')
    expect(check('submitTask()')).toBe('function submitTask()')
    expect(check('PoolTaskError')).toBe('identifier PoolTaskError')
    expect(check('thread-warmup.ts')).toBe('file thread-warmup.ts')
    expect(check('src/exec/submit.ts')).toBeUndefined()
    expect(check('submit()')).toBeUndefined()
    expect(check('pools.pick(workspace, limits.pool)')).toBeUndefined()
    expect(check('POOL_FAILURES')).toBeUndefined()
    expect(check('src/ops/<family>/schema.ts')).toBeUndefined()
    // a dotted name: each part exists, the last as a member
    expect(check('StreamStep.answer')).toBeUndefined()
    expect(check('request.execution')).toBeUndefined()
    expect(check('StreamStage.answer')).toBe('identifier StreamStage.answer')
    expect(check('StreamStep.jsonBytesOfAnswer')).toBe('identifier StreamStep.jsonBytesOfAnswer')
    // both words exist, but nothing has a member of that name
    expect(words.has('satisfies')).toBe(true)
    expect(check('StreamStep.satisfies')).toBe('identifier StreamStep.satisfies')
    expect(check('pools.pickThread(workspace)')).toBe('function pools.pickThread(workspace)')
  })
})

// Comments that name files are checked too: a comment of the code that cites a path or a file of the
// repository (src/exec/submit.ts, lane/answer.ts, thread-memory.ts) must cite one that exists (issue 37:
// comments named lane/enter.ts, lane/plugin.ts and thread-memory.ts long after they were gone).
const SOURCES = files.filter(
  (f) => /^(src|workers|scripts|bench|test)\/.*\.ts$/.test(f) && f !== 'test/docs/names.test.ts',
)
// files of other code bases, or of no checkout, that comments cite: the entry older trees ran
// (bench/lib/base-tree.ts), a path a .dockerignore test shows a pattern would match, Prometheus's migration
// guide, the bench's generated report
const NOT_OURS = new Set(['src/server.ts', 'src/docs', 'docs/migration.md', 'report.md'])

function commentsOf(source: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = []
  for (const [i, line] of source.split('\n').entries()) {
    const at = line.search(/(^|\s)\/\/\s|^\s*\*\s|\/\*/)
    if (at >= 0) out.push({ line: i + 1, text: line.slice(at) })
  }
  return out
}

// The files a comment names: repo paths (src/…, workers/…) and names of .ts, .lua and .md files.
function namedFiles(comment: string): string[] {
  const named: string[] = []
  for (const m of comment.matchAll(
    /(?<![\w./$<{-])((?:[\w-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|lua|md))(?![\w/])/g,
  ))
    if (!m[1]!.includes('node_modules')) named.push(m[1]!)
  for (const m of comment.matchAll(/(?<![\w./-])((?:src|workers|bench|scripts|test|docs)\/[\w./-]*[\w/])/g))
    if (!/\.(ts|lua|md)$/.test(m[1]!)) named.push(m[1]!)
  return named
}

describe('comments name only files that exist', () => {
  it('every file a comment of src/, workers/, scripts/, bench/ or test/ names exists', () => {
    const missing: string[] = []
    for (const file of SOURCES) {
      for (const { line, text } of commentsOf(readFileSync(join(ROOT, file), 'utf8'))) {
        for (const name of namedFiles(text)) {
          if (placeholder(name) || NOT_OURS.has(name) || GENERATED.some((g) => name.startsWith(g))) continue
          const exists = ROOTS.test(name) ? pathExists(name) : tailExists(name)
          if (!exists) missing.push(`${file}:${line}: ${name}`)
        }
      }
    }
    expect(missing).toEqual([])
  })

  it('reads paths and file names out of a comment', () => {
    expect(namedFiles('// the lane (src/http/lane/enter.ts, lane/plugin.ts; thread-memory.ts)')).toEqual([
      'src/http/lane/enter.ts',
      'lane/plugin.ts',
      'thread-memory.ts',
    ])
    expect(namedFiles('// see src/exec/ and the README.md')).toEqual(['README.md', 'src/exec/'])
  })
})
