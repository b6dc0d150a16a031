import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import https from 'node:https'
import { setPriority, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { worstRequest } from '../../../bench/stall-inputs.ts'
import { canary } from '../../helpers/canary.ts'
import { opNamed } from '../../helpers/ops.ts'
import { type ServerProcess, startServerProcess } from '../../helpers/server-process.ts'

// Issue 14 follow-up: a large JSON body for a pure op route (url.build, jwt.decode...) is parsed and
// validated on the worker (OpSpec.body), not on the gateway's event loop. Before, a 4 MiB url.build body
// was JSON.parse'd and zod-checked on the loop and a canary /healthz waited for it.

const MiB = 1024 * 1024

const UPLOADER = new URL('../../helpers/upload-child.ts', import.meta.url).pathname

// One JSON POST from a child process at nice 10 (a client on another machine, in effect), so the canary's
// process measures the gateway, not its own client's TLS work.
function postFromChild(
  server: ServerProcess,
  path: string,
  body: string,
): Promise<{ status: number; bytes: number; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [UPLOADER], { stdio: ['pipe', 'pipe', 'inherit'] })
    if (child.pid) setPriority(child.pid, 10)
    child.stdin.end(
      JSON.stringify({
        url: `${server.url}${path}`,
        ca: server.ca,
        key: server.firstKey,
        contentType: 'application/json',
        head: Buffer.from(body).toString('base64'),
        piece: '',
        count: 0,
        tail: '',
      }),
    )
    let out = ''
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString()
    })
    child.once('error', reject)
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`uploader exited ${code}`)),
    )
  })
}

// A small JSON POST from this process, with the answer parsed.
function post(
  server: ServerProcess,
  path: string,
  body: string,
): Promise<{ status: number; headers: Record<string, unknown>; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${server.url}${path}`, {
      method: 'POST',
      ca: server.ca,
      agent: false,
      headers: {
        authorization: `Bearer ${server.firstKey}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
    })
    req.on('response', (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => {
        text += c
      })
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, json: JSON.parse(text) }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('large JSON bodies of pure op routes are parsed and validated on the pool', () => {
  let server: ServerProcess
  let dataDir: string
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'anvil-large-json-'))
    server = await startServerProcess({ DATA_DIR: dataDir, DEFAULT_PLAN: 'business', LOG_LEVEL: 'warn' })
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('a 4 MiB url.build body and a 4 MiB jwt.decode token keep /healthz under 250 ms', {
    timeout: 180_000,
  }, async () => {
    const build = JSON.stringify(worstRequest(opNamed('url.build'), 4 * MiB).body)
    const decode = JSON.stringify(worstRequest(opNamed('jwt.decode'), 4 * MiB).body)
    expect(build.length).toBeGreaterThan(3.5 * MiB)
    expect(decode.length).toBeGreaterThan(3.5 * MiB)
    // the first request of an op loads it on a pool thread: not what is measured
    await postFromChild(
      server,
      '/v1/url/build',
      JSON.stringify(worstRequest(opNamed('url.build'), 64 * 1024).body),
    )
    await postFromChild(
      server,
      '/v1/jwt/decode',
      JSON.stringify(worstRequest(opNamed('jwt.decode'), 64 * 1024).body),
    )
    // the same canary with nothing to do first: on a loaded machine the scheduler alone delays it
    const quiet = await canary(server, () => new Promise((r) => setTimeout(r, 3_000)))
    const urlBuild = await canary(server, () => postFromChild(server, '/v1/url/build', build))
    const jwtDecode = await canary(server, () => postFromChild(server, '/v1/jwt/decode', decode))
    console.log(
      `canary worst: quiet ${quiet.worstMs.toFixed(0)} ms, url.build 4 MiB ${urlBuild.worstMs.toFixed(0)} ms, ` +
        `jwt.decode 4 MiB ${jwtDecode.worstMs.toFixed(0)} ms`,
    )
    expect(urlBuild.result).toMatchObject({ status: 200, complete: true })
    expect(jwtDecode.result).toMatchObject({ status: 200, complete: true })
    expect(urlBuild.worstMs).toBeLessThan(250 + quiet.worstMs)
    expect(jwtDecode.worstMs).toBeLessThan(250 + quiet.worstMs)
  })

  it('a misspelt field is refused alike inline and on the pool (ERR_VALIDATION, did-you-mean)', async () => {
    // url.build's inline bound is 16 KiB: the padded body goes to the pool, raw
    const padding = { search: `q=${'x'.repeat(32 * 1024)}` }
    const small = { protocol: 'https', hostnme: 'example.com' }
    const inline = await post(server, '/v1/url/build', JSON.stringify(small))
    const pooled = await post(server, '/v1/url/build', JSON.stringify({ ...small, ...padding }))
    expect(inline.status).toBe(400)
    expect(pooled.status).toBe(400)
    expect(inline.json).toMatchObject({
      error: {
        code: 'ERR_VALIDATION',
        details: { issues: [expect.objectContaining({ path: 'hostnme', did_you_mean: 'hostname' })] },
      },
    })
    expect(pooled.json).toEqual(inline.json)
    // and a valid padded body does run on the pool
    const ok = await post(
      server,
      '/v1/url/build',
      JSON.stringify({ protocol: 'https', hostname: 'a.b', ...padding }),
    )
    expect(ok.status).toBe(200)
    expect(String(ok.headers['server-timing'])).toMatch(/^dispatch;desc="paid"/)
  })
})
