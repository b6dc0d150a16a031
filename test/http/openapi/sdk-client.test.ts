import { execFile } from 'node:child_process'
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { generateTypes } from './sdk/generate.ts'

const run = promisify(execFile)
const ROOT = new URL('../../../', import.meta.url).pathname

// What an integrator does with the document: validate it, generate a typed client with openapi-typescript
// and call the API through openapi-fetch, with named types and no casts, type-checked by this repository's
// TypeScript.
const PROGRAM = `
import createClient from 'openapi-fetch'
import type { components, paths } from './anvil.ts'

type Schemas = components['schemas']
type HashResult = Schemas['HashResult']
type JsonDiffResult = Schemas['JsonDiffResult']
type ErrorCode = Schemas['ErrorCode']

// JSON answers (some operations can also answer raw bytes to Accept: application/octet-stream)
const anvil = createClient<paths, 'application/json'>({
  baseUrl: 'https://localhost:8443',
  headers: { authorization: 'Bearer anvil_live_x' },
})

export async function hashIt(): Promise<string | ErrorCode> {
  const { data, error } = await anvil.POST('/v1/hash/{algorithm}', {
    params: { path: { algorithm: 'sha256' } },
    body: { input: 'hello', output_encoding: 'base64' },
  })
  if (error) return error.error.code
  const result: HashResult = data.data
  return result.digest
}

export async function diffIt(): Promise<JsonDiffResult | undefined> {
  const { data } = await anvil.POST('/v1/json/diff', { body: { left: { a: 1 }, right: { a: 2 }, output: 'both' } })
  return data?.data
}

export async function jobIt(): Promise<string | undefined> {
  const submitted = await anvil.POST('/v1/jobs', {
    body: { operation: 'hash', params: { algorithm: 'sha256', input: 'big' } },
  })
  if (!submitted.data) return submitted.error.error.message
  const { data } = await anvil.GET('/v1/jobs/{id}', { params: { path: { id: submitted.data.data.id } } })
  const job = data?.data
  // the result is typed by the job's operation
  if (job?.operation === 'hash' && job.status === 'completed') return job.result?.digest
  if (job?.operation === 'json.diff') return String(job.result?.equal)
  return job?.status
}
`

const WRONG = `
import createClient from 'openapi-fetch'
import type { paths } from './anvil.ts'
const anvil = createClient<paths>({ baseUrl: 'https://localhost:8443' })
export const p = anvil.POST('/v1/hash/{algorithm}', { params: { path: { algorithm: 'sha256' } }, body: { inptu: 'x' } })
`

async function typecheck(dir: string, files: string[]) {
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2024',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noUncheckedIndexedAccess: true,
        allowImportingTsExtensions: true,
        noEmit: true,
        skipLibCheck: false,
        types: [],
        lib: ['es2024', 'dom'],
      },
      files,
    }),
  )
  return run(join(ROOT, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json')], { cwd: dir }).then(
    (r) => ({ ok: true, out: r.stdout + r.stderr }),
    (err: { stdout?: string; stderr?: string }) => ({
      ok: false,
      out: `${err.stdout ?? ''}${err.stderr ?? ''}`,
    }),
  )
}

describe('an SDK from the OpenAPI documents', () => {
  let t: TestApp
  let publicDoc: Record<string, unknown>
  let adminDoc: Record<string, unknown>
  let WORK = ''
  beforeAll(async () => {
    t = await startTestApp()
    publicDoc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
    const admin = await t.admin.inject({
      method: 'GET',
      url: '/admin/openapi.json',
      headers: { authorization: `Bearer ${t.adminToken}`, host: '127.0.0.1' },
    })
    expect(admin.statusCode).toBe(200)
    adminDoc = admin.json()
    // a project of its own, that resolves openapi-fetch from this repository's node_modules
    WORK = await mkdtemp(join(tmpdir(), 'anvil-sdk-'))
    await symlink(join(ROOT, 'node_modules'), join(WORK, 'node_modules'))
  })
  afterAll(async () => {
    await t.close()
    if (WORK) await rm(WORK, { recursive: true, force: true })
  })

  it('both documents are valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', async () => {
    for (const doc of [publicDoc, adminDoc]) {
      const result = await new Validator().validate(doc as never)
      expect(result.errors ?? []).toEqual([])
      expect(result.valid).toBe(true)
    }
  })

  it('openapi-typescript generates a client that openapi-fetch calls without casts, and refuses a typo', async () => {
    await writeFile(join(WORK, 'anvil.ts'), await generateTypes(publicDoc))
    await writeFile(join(WORK, 'program.ts'), PROGRAM)
    const good = await typecheck(WORK, ['program.ts'])
    expect(good.out).toBe('')
    expect(good.ok).toBe(true)
    await writeFile(join(WORK, 'wrong.ts'), WRONG)
    const bad = await typecheck(WORK, ['wrong.ts'])
    expect(bad.ok).toBe(false)
    expect(bad.out).toMatch(/inptu/)
  }, 120_000)

  it('the admin document types the admin API too', async () => {
    const types = await generateTypes(adminDoc)
    expect(types).toContain('"/admin/workspaces"')
    expect(types).not.toContain('"/v1/hash/{algorithm}"')
  })
})
