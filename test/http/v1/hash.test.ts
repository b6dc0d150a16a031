import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

describe('/v1/hash', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp()
  })
  afterAll(() => t.close())

  it('hashes a JSON body', async () => {
    const res = await t.post('/v1/hash/sha256', { input: 'abc' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      ok: true,
      data: {
        algorithm: 'sha256',
        digest: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
        output_encoding: 'hex',
        input_bytes: 3,
      },
    })
  })

  it('accepts upper-case algorithm names and a charset parameter', async () => {
    const res = await t.post(
      '/v1/hash/SHA256',
      { input: 'abc' },
      { 'content-type': 'application/json; charset=UTF-8' },
    )
    expect(res.statusCode).toBe(200)
    expect(res.json().data.algorithm).toBe('sha256')
  })

  it('hashes a raw octet-stream body with options from the query string', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/hash/sha256?output_encoding=base64',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/octet-stream' },
      payload: Buffer.from('abc'),
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toMatchObject({
      digest: 'ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=',
      input_bytes: 3,
    })
  })

  it('answers raw digest bytes for Accept: application/octet-stream', async () => {
    const res = await t.post('/v1/hash/md5', { input: 'abc' }, { accept: 'application/octet-stream' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/octet-stream')
    expect(res.rawPayload.toString('hex')).toBe('900150983cd24fb0d6963f7d28e17f72')
  })

  it('lists algorithms with security flags', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/hash/algorithms',
      headers: { authorization: `Bearer ${t.key}` },
    })
    expect(res.statusCode).toBe(200)
    const md5 = res.json().data.algorithms.find((a: { name: string }) => a.name === 'md5')
    expect(md5).toMatchObject({ secure: false, digest_bytes: 16 })
  })

  it('refuses unknown algorithms, lone surrogates and schema violations with codes', async () => {
    const unknown = await t.post('/v1/hash/sha999', { input: 'x' })
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json().error.code).toBe('ERR_UNSUPPORTED_ALGORITHM')

    const lone = await t.post('/v1/hash/sha256', '{"input":"a\\ud800"}')
    expect(lone.statusCode).toBe(400)
    expect(lone.json().error).toMatchObject({ code: 'ERR_INVALID_ENCODING', details: { position: 1 } })

    const bad = await t.post('/v1/hash/sha256', { input: 5, output_encoding: 'rot13' })
    expect(bad.statusCode).toBe(400)
    const err = bad.json().error
    expect(err.code).toBe('ERR_VALIDATION')
    expect(err.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      'input',
      'output_encoding',
    ])
  })
})
