import { execFile, spawnSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

const run = promisify(execFile)
const haveCurl = spawnSync('curl', ['--version']).status === 0
if (!haveCurl && process.env.CI === 'true')
  throw new Error('CI=true but curl is missing (apt-get install curl)')

const basic = (user: string, password = '') =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

// Issue 43: a key sent as HTTP Basic (as Stripe takes it), without `Bearer `, or in X-API-Key was answered
// "No API key." although a key was sent.
describe('where an API key is read from, and what a key in the wrong place is told', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ listen: true })
  })
  afterAll(() => t.close())

  const hash = (headers: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/hash/sha256',
      headers: { 'content-type': 'application/json', ...headers },
      payload: '{"input":"abc"}',
    })

  it('takes HTTP Basic with the key as the user name (the password is not read), limited like Bearer', async () => {
    for (const password of ['', 'anything']) {
      const r = await hash({ authorization: basic(t.key, password) })
      expect(r.statusCode, password).toBe(200)
      expect(r.headers.ratelimit).toMatch(/"second";r=\d+/)
    }
    // the key with its last character changed (to "x", or "y" where it already is "x": a key ends in "x"
    // one time in 64, and then this was the key itself)
    const changed = t.key.endsWith('x') ? 'y' : 'x'
    const unknown = await hash({ authorization: basic(`${t.key.slice(0, -1)}${changed}`) })
    expect(unknown.statusCode).toBe(401)
    expect(unknown.json().error.code).toBe('ERR_INVALID_API_KEY')
  })

  it.runIf(haveCurl)('curl -u <key>: works as written', async () => {
    const ca = join(t.dataDir, 'ca.pem')
    await writeFile(ca, t.tls!.cert)
    const { stdout } = await run('curl', [
      '-s',
      '--cacert',
      ca,
      `${t.url}/v1/hash/sha256`,
      '-u',
      `${t.key}:`,
      '-H',
      'Content-Type: application/json',
      '-d',
      '{"input":"abc"}',
    ])
    expect(JSON.parse(stdout).data.digest).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
  })

  it('a key in the wrong place is told where it was seen and where it goes', async () => {
    const cases: [Record<string, string>, RegExp, string][] = [
      [
        { authorization: t.key },
        /^The Authorization header holds a key without its scheme: send Authorization: Bearer <key>/,
        'authorization',
      ],
      [
        { 'x-api-key': t.key },
        /^An API key was sent in the x-api-key header, which this API does not read: send Authorization: Bearer <key>/,
        'x-api-key',
      ],
      [{ 'api-key': t.key }, /^An API key was sent in the api-key header/, 'api-key'],
      [
        { authorization: `Token ${t.key}` },
        /^The Authorization header uses the "Token" scheme, which this API does not take/,
        'authorization',
      ],
      [
        { authorization: 'Bearer' },
        /^The Authorization header says Bearer, but what follows is not a key/,
        'authorization',
      ],
      [
        { authorization: basic('', t.key) },
        /^The HTTP Basic credentials hold no key as their user name/,
        'authorization',
      ],
    ]
    for (const [headers, message, foundIn] of cases) {
      const r = await hash(headers)
      expect(r.statusCode, JSON.stringify(headers)).toBe(401)
      const error = r.json().error
      expect(error.code).toBe('ERR_MISSING_API_KEY')
      expect(error.message).toMatch(message)
      expect(error.details).toEqual({ found_in: foundIn })
      // the key itself is never echoed
      expect(r.body).not.toContain(t.key)
      expect(r.headers['www-authenticate']).toBe('Bearer realm="anvil"')
    }
    // another secret there is not echoed either
    const stripe = await hash({ authorization: 'sk_live_0123456789abcdef' })
    expect(stripe.json().error.message).toMatch(/^The Authorization header holds a value without its scheme/)
    expect(stripe.body).not.toContain('sk_live_0123456789abcdef')
    const odd = await hash({ authorization: 'sk_live_0123456789:abcdef x' })
    expect(odd.json().error.message).toMatch(/^The Authorization header uses a scheme, which/)
    expect(odd.body).not.toContain('sk_live')
    const none = (await hash({})).json().error
    expect(none).toMatchObject({
      code: 'ERR_MISSING_API_KEY',
      message: 'No API key. Send it as Authorization: Bearer <key>, or as the user name of HTTP Basic.',
    })
    expect(none.details).toBeUndefined()
  })
})
