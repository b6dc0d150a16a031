import { execFile, spawnSync } from 'node:child_process'
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ERRORS } from '../../src/errors.ts'
import { differences } from '../helpers/examples-runner.ts'
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts'
import {
  markdownFiles,
  parseShown,
  type ShellBlock,
  shellBlocks,
  shellSteps,
  singleQuotedVariables,
  unsetVariables,
} from '../helpers/shell-docs.ts'

const run = promisify(execFile)
const ROOT = new URL('../../', import.meta.url).pathname
const blocks = markdownFiles().flatMap(shellBlocks)
const where = (b: ShellBlock) => `${b.file}:${b.line}`

describe('shell examples of README.md and docs/ (lint)', () => {
  it('never put a $VARIABLE inside single quotes, where the shell would send it as written', () => {
    expect(blocks.length).toBeGreaterThan(60)
    const problems = blocks.flatMap((b) =>
      singleQuotedVariables(b.source).map((v) => `${where(b)}: $${v} inside single quotes`),
    )
    expect(problems).toEqual([])
  })

  it('use only variables a reader has been given or an earlier step of the same page set', () => {
    const problems = markdownFiles().flatMap((file) =>
      unsetVariables(
        file,
        shellBlocks(file).map((b) => b.source),
      ),
    )
    expect(problems).toEqual([])
  })

  it('the lint finds a variable no earlier step sets (issue 43: docs/examples/jobs.md used $JOB_ID unset)', () => {
    const use = 'curl https://localhost:8443/v1/jobs/$JOB_ID -H "Authorization: Bearer $ANVIL_KEY"'
    expect(unsetVariables('jobs.md', [use])).toEqual(['jobs.md: $JOB_ID is used before any step sets it'])
    expect(unsetVariables('jobs.md', ["JOB_ID=$(curl -s … | grep -o 'job_[0-9A-Za-z]*')", use])).toEqual([])
    // set later, or only in a comment: still unset where it is used
    expect(unsetVariables('x.md', [use, 'JOB_ID=job_1'])).toHaveLength(1)
    expect(unsetVariables('x.md', [`# JOB_ID=job_1\n${use}`])).toHaveLength(1)
    expect(unsetVariables('x.md', ['BASE=$(git rev-parse HEAD)\nREF=$BASE npm run bench'])).toEqual([])
  })

  it('the lint finds the quoting mistakes the issue found', () => {
    expect(singleQuotedVariables(`curl -d '{"workspace_id":"$WORKSPACE_ID"}'`)).toEqual(['WORKSPACE_ID'])
    expect(singleQuotedVariables(`curl 'http://x/keys?workspace_id=\${WORKSPACE_ID}'`)).toEqual([
      'WORKSPACE_ID',
    ])
    expect(
      singleQuotedVariables(`curl -H "Authorization: Bearer $KEY" -d '{"a":1}' --data-binary $'$x\\n'`),
    ).toEqual([])
    expect(singleQuotedVariables(`# it's '$NOT' code\ncurl -d "{\\"a\\":\\"$OK\\"}"`)).toEqual([])
    // a password hash is sent as written: its "$" fields are not variables
    expect(
      singleQuotedVariables(`curl -d '{"hash":"$argon2id$v=19$m=65536,t=2,p=1$c29tZQ$CTFhFdXP"}'`),
    ).toEqual([])
  })
})

// The blocks of README.md and docs/*.md, and those of docs/examples/ that are not OpenAPI examples (a
// command piped into curl; the others run in test/http/openapi/examples.test.ts, with the OpenAPI
// documents' checks), are run as a newcomer would: bash, real curl, `npm run admin`, from a directory
// that looks like a checkout (package.json, src, node_modules linked in) where `npm start` has run for the
// first time; `https://localhost:8443` and `127.0.0.1:9464` are routed to that gateway's ports by curl's
// own --connect-to (in a .curlrc), so the commands run exactly as written. Each step's answer is compared
// with the one shown after it (`# → …`), and every id it answers sets the variable the next steps use.
const haveCurl = spawnSync('curl', ['--version']).status === 0
if (!haveCurl && process.env.CI === 'true')
  throw new Error('CI=true but curl is missing (apt-get install curl)')

describe.runIf(haveCurl)(
  'shell examples of README.md and docs/*.md, run against a first-start gateway',
  () => {
    let dir: string
    let server: ServerProcess
    const vars: Record<string, string> = {}
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'anvil-readme-'))
      for (const entry of ['package.json', 'src', 'node_modules', 'docs'])
        await symlink(join(ROOT, entry), join(dir, entry))
      // as `npm start` does, from the checkout, DATA_DIR unset (./.data); stdout is not a terminal, so the
      // first key and admin token are in .data/first-start.txt, where the README says to read them
      server = await startServerProcess({ LOG_LEVEL: 'warn' }, { cwd: dir })
      expect(server.firstKey).toBeDefined()
      vars.ANVIL_KEY = server.firstKey!
      const api = new URL(server.url)
      const admin = new URL(server.adminUrl)
      await writeFile(
        join(dir, '.curlrc'),
        [
          `connect-to = "localhost:8443:127.0.0.1:${api.port}"`,
          `connect-to = "127.0.0.1:9464:127.0.0.1:${admin.port}"`,
          'silent',
          'write-out = "\\n@@answer %{http_code} [%{content_type}]\\n"',
          '',
        ].join('\n'),
      )
    }, 90_000)
    afterAll(async () => {
      await server?.stop()
      if (dir) await rm(dir, { recursive: true, force: true })
    })

    // docs/examples/' curl blocks run in examples.test.ts, with the OpenAPI documents' checks; the rest here
    const runnable = blocks.filter((b) => !b.openApiExample)

    it('every block is run, or says why it cannot be (<!-- not run: … -->)', () => {
      expect(runnable.filter((b) => b.notRun === undefined).length).toBeGreaterThan(3)
      for (const b of runnable.filter((x) => x.notRun !== undefined))
        expect(b.notRun!.length, where(b)).toBeGreaterThan(10)
    })

    // A docs/examples page whose own steps run here (a variable kept from an answer) is run whole, in order,
    // as its reader runs it: its OpenAPI examples set up what the later steps read (the account a sign-in
    // captures, the job a poll names) and are compared in examples.test.ts, not here.
    const setUp = new Set(runnable.filter((b) => b.notRun === undefined).map((b) => b.file))
    const runHere = (b: ShellBlock) => b.notRun === undefined && (!b.openApiExample || setUp.has(b.file))

    it('every step answers what the documentation shows', async () => {
      const failures: string[] = []
      let steps = 0
      for (const block of blocks.filter(runHere)) {
        const blockSteps = shellSteps(block.source)
        if (block.openApiExample) {
          for (const step of blockSteps) {
            const result = await run('bash', ['-c', step.command], {
              cwd: dir,
              env: { PATH: process.env.PATH, HOME: dir, CURL_HOME: dir, ...vars },
              maxBuffer: 16 * 1024 * 1024,
            }).catch((err: { code: number; stderr: string }) => err)
            if ('code' in result && result.code !== 0)
              failures.push(`${where(block)}: ${step.command.slice(0, 90)}: exit ${result.code}`)
          }
          continue
        }
        // docs/examples' style: the answers in the ```json block after it, one line per command
        if (block.answers && blockSteps.every((s) => s.shown === undefined)) {
          expect(block.answers.length, where(block)).toBe(blockSteps.length)
          blockSteps.forEach((s, i) => {
            s.shown = block.answers![i]
          })
        }
        for (const step of blockSteps) {
          steps++
          const at = `${where(block)}: ${step.command.slice(0, 90)}`
          // an assignment (JOB_ID=$(curl …)) holds for the steps after it, as in the reader's shell
          const assigned = /^(?:export\s+)?([A-Z_][A-Z0-9_]*)=/.exec(step.command)?.[1]
          const script = assigned ? `${step.command}\nprintf '@@var %s' "$${assigned}"` : step.command
          const result = await run('bash', ['-c', script], {
            cwd: dir,
            env: { PATH: process.env.PATH, HOME: dir, CURL_HOME: dir, ...vars },
            maxBuffer: 16 * 1024 * 1024,
          }).catch((err: { code: number; stdout: string; stderr: string }) => err)
          const code = 'code' in result ? result.code : 0
          if (assigned) {
            const value = /@@var (.*)$/.exec(result.stdout)?.[1] ?? ''
            if (code !== 0 || value === '')
              failures.push(`${at}: ${assigned} was not set (${result.stderr.trim()})`)
            vars[assigned] = value
            continue
          }
          const m = /\n?@@answer (\d{3}) \[([^\]]*)\]\n$/.exec(result.stdout)
          // npm run prints its own header (> anvil@… admin) before the program's output
          const body = (m ? result.stdout.slice(0, m.index) : result.stdout).replace(/^(?:\n|> .*\n)+/, '')
          const status = m ? Number(m[1]) : undefined
          if (code !== 0) {
            failures.push(`${at}: exit ${code}: ${result.stderr.trim().slice(0, 300)}`)
            continue
          }
          let answer: unknown
          try {
            answer = JSON.parse(body)
          } catch {
            answer = undefined
          }
          if (!step.shown) {
            if (status !== undefined && status >= 300)
              failures.push(`${at}: status ${status}: ${body.slice(0, 200)}`)
            continue
          }
          const shown = parseShown(step.shown)
          const code2 = (shown.json as { error?: { code?: string } } | undefined)?.error?.code
          const wanted =
            shown.status ??
            (code2 && code2 in ERRORS ? ERRORS[code2 as keyof typeof ERRORS].status : undefined)
          if (status !== undefined) {
            if (wanted !== undefined ? status !== wanted : status >= 300)
              failures.push(`${at}: status ${status}, shown ${wanted ?? '2xx'}: ${body.slice(0, 200)}`)
          }
          const json =
            m?.[2]?.startsWith('application/json') || (status === undefined && answer !== undefined)
          if (json && shown.json !== undefined) {
            for (const d of differences(shown.json, answer)) failures.push(`${at}: ${d}`)
          } else if (body.trim() !== shown.text) {
            failures.push(
              `${at}: answered ${JSON.stringify(body.slice(0, 200))}, shown ${JSON.stringify(shown.text)}`,
            )
          }
        }
      }
      expect(failures).toEqual([])
      expect(steps).toBeGreaterThan(15)
    }, 300_000)
  },
)
