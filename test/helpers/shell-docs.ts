import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { VOLATILE } from '../../src/http/openapi/examples.ts'

// The shell examples of README.md and docs/: every ```sh block, where it is, and what a person would type.
export interface ShellBlock {
  file: string // repository-relative
  line: number // of the opening fence
  source: string
  // `<!-- not run: why -->` right before the block: a step the docs test cannot take (a Docker engine)
  notRun: string | undefined
  // the ```json block that follows (docs/examples' style: one answer per command, one per line)
  answers: string[] | undefined
  // docs/examples/ blocks of curl commands with their answers are the OpenAPI documents' examples, run by
  // test/http/openapi/examples.test.ts; the others (a command piped into curl) are run here
  openApiExample: boolean
}

const ROOT = new URL('../../', import.meta.url).pathname
const FENCE = /```(sh|bash|shell)\n([\s\S]*?)```/g

export function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))
  const examples = readdirSync(join(ROOT, 'docs', 'examples')).filter((f) => f.endsWith('.md'))
  return ['README.md', ...docs.map((f) => `docs/${f}`), ...examples.map((f) => `docs/examples/${f}`)]
}

export function shellBlocks(file: string): ShellBlock[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  return [...text.matchAll(FENCE)].map((m) => {
    const before = text.slice(0, m.index).trimEnd()
    const marker = /<!--\s*not run:\s*([^>]*?)\s*-->$/.exec(before)
    const after = text.slice(m.index + m[0].length)
    const json = /^\s*```json\n([\s\S]*?)```/.exec(after)?.[1]
    const answers = json?.split('\n').filter((l) => l.trim() !== '')
    return {
      file,
      line: text.slice(0, m.index).split('\n').length,
      source: m[2]!,
      notRun: marker?.[1],
      answers,
      // the rule of src/http/openapi/examples.ts's parser: a block that starts with curl, answered
      openApiExample:
        file.startsWith('docs/examples/') && m[2]!.trimStart().startsWith('curl') && answers !== undefined,
    }
  })
}

// `$NAME` / `${NAME}` written inside single quotes, where the shell sends it as it stands: what a reader
// who copies the line would send (issue 28: '{"workspace_id":"$WORKSPACE_ID"}' answered 404). $'…' (ANSI-C
// quoting) and comments do not count.
export function singleQuotedVariables(source: string): string[] {
  const found: string[] = []
  let i = 0
  let wordStart = true
  while (i < source.length) {
    const c = source[i]!
    if (c === '#' && wordStart) {
      while (i < source.length && source[i] !== '\n') i++
      continue
    }
    if (c === '\\') {
      i += 2
      wordStart = false
      continue
    }
    if (c === '$' && source[i + 1] === "'") {
      let j = i + 2
      for (; j < source.length && source[j] !== "'"; j++) if (source[j] === '\\') j++
      i = j + 1
      wordStart = false
      continue
    }
    if (c === "'") {
      const end = source.indexOf("'", i + 1)
      const quoted = source.slice(i + 1, end === -1 ? undefined : end)
      // a variable is upper case (the examples' are: ANVIL_KEY, WORKSPACE_ID); a "$" before anything else
      // is sent as written on purpose (a password hash: $argon2id$v=19$m=…, $2b$12$…)
      for (const m of quoted.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)(?![A-Za-z0-9_])/g)) found.push(m[1]!)
      i = end === -1 ? source.length : end + 1
      wordStart = false
      continue
    }
    if (c === '"') {
      let j = i + 1
      for (; j < source.length && source[j] !== '"'; j++) if (source[j] === '\\') j++
      i = j + 1
      wordStart = false
      continue
    }
    wordStart = /[\s;|&(]/.test(c)
    i++
  }
  return found
}

// A step of a shell block: one command (with its `\` continuations), the answer shown after it
// (`# → [status] answer`, continued on lines starting `#  `), or none.
export interface ShellStep {
  command: string
  shown: string | undefined
}

export function shellSteps(source: string): ShellStep[] {
  const steps: ShellStep[] = []
  const lines = source.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line.trim() === '') continue
    if (line.startsWith('# →') || line.startsWith('#→')) {
      const last = steps.at(-1)
      if (!last) throw new Error(`an answer with no command before it: ${line}`)
      let shown = line.replace(/^#\s*→\s?/, '')
      while (lines[i + 1]?.startsWith('#  ')) shown += lines[++i]!.slice(1).trim()
      last.shown = shown
      continue
    }
    if (line.startsWith('#')) continue
    let command = line
    while (command.endsWith('\\') && i + 1 < lines.length) command = `${command.slice(0, -1)}${lines[++i]}`
    steps.push({ command: command.trimEnd(), shown: undefined })
  }
  return steps
}

export interface ShownAnswer {
  status: number | undefined
  // parsed JSON with the "…" conventions, or the exact text of a raw answer
  json: unknown
  text: string
}

// "202 {…}" → status 202 and the JSON. In the JSON, "…" is any value, "abc…" any string starting "abc", an
// array ending in "…" any array starting with the items before it, and a bare … where a member would be
// stands for members not shown.
export function parseShown(shown: string): ShownAnswer {
  const m = /^(\d{3})\s+([\s\S]*)$/.exec(shown.trim())
  const status = m ? Number(m[1]) : undefined
  const text = (m ? m[2]! : shown).trim()
  const withMembers = text
    .replace(/([{,])\s*…\s*(?=[,}])/g, `$1"${VOLATILE}":"${VOLATILE}"`)
    .replace(/,"…":"…"\s*,/g, `,"${VOLATILE}":"${VOLATILE}",`)
  let json: unknown
  try {
    json = JSON.parse(withMembers)
  } catch {
    json = undefined
  }
  return { status, json, text }
}

// The variables examples may use without setting them: the key a first start gives (the README says where
// it is). Every other one is set by an earlier step of the same page, as a reader would set it.
const GIVEN = new Set(['ANVIL_KEY'])
// The $VARIABLES a page's blocks use before any earlier step of the page (or the same line, to its left)
// sets them: `NAME=…` or `export NAME=…` at the start of a step, a comment not counting.
export function unsetVariables(file: string, sources: string[]): string[] {
  const set = new Set(GIVEN)
  const problems: string[] = []
  for (const source of sources) {
    for (const step of shellSteps(source)) {
      for (const m of step.command.matchAll(/\$\{?([A-Z][A-Z0-9_]*)(?![A-Za-z0-9_])/g))
        if (!set.has(m[1]!)) problems.push(`${file}: $${m[1]} is used before any step sets it`)
      const assigned = /^(?:export\s+)?([A-Z_][A-Z0-9_]*)=/.exec(step.command)?.[1]
      if (assigned) set.add(assigned)
    }
  }
  return problems
}
