import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { jobsAppStarter } from '../../jobs/jobs-harness.ts'

const BIG = '12345678901234567890'
// enough filler to take a body past the pool thresholds (16 KiB diff, 32 KiB patch): parsed on a worker
const filler = (n: number) => `[${Array.from({ length: n }, (_, i) => `{"i":${i},"p":${i}.50}`).join(',')}]`

function where(res: { headers: Record<string, unknown> }): string {
  return /dispatch;desc="([^"]+)"/.exec(String(res.headers['server-timing']))?.[1] ?? 'inline'
}

// Issue 15, item 1: numbers beyond a double are compared and written back exactly, inline and on the pool.
describe('exact numbers through /v1/json/diff and /v1/json/patch', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  for (const size of [0, 2_000]) {
    const pad = size === 0 ? '' : `,"pad":${filler(size)}`
    it(`diff: 12345678901234567890 vs ...891 differ (${size === 0 ? 'inline' : 'pool'})`, async () => {
      const res = await t.post(
        '/v1/json/diff',
        `{"left":{"id":${BIG}${pad}},"right":{"id":12345678901234567891${pad}},"output":"both"}`,
      )
      expect(res.statusCode).toBe(200)
      expect(where(res)).toBe(size === 0 ? 'inline' : 'paid')
      expect(res.body).toBe(
        `{"ok":true,"data":{"equal":false,"delta":{"id":[${BIG},12345678901234567891]},` +
          `"json_patch":[{"op":"replace","path":"/id","value":12345678901234567891}],` +
          `"stats":{"added":0,"removed":0,"changed":1,"moved":0}}}`,
      )
      const same = await t.post('/v1/json/diff', `{"left":{"a":1.0${pad}},"right":{"a":1${pad}}}`)
      expect(same.json().data).toEqual({ equal: true, delta: {}, stats: expect.any(Object) })
    })

    it(`patch: untouched numbers come back as written (${size === 0 ? 'inline' : 'pool'})`, async () => {
      const res = await t.post(
        '/v1/json/patch',
        `{"document":{"id":${BIG},"n":1,"f":1.10,"e":1E400,"z":-0${pad}},` +
          `"patch":[{"op":"replace","path":"/n","value":2.0},{"op":"test","path":"/f","value":1.1}]}`,
      )
      expect(res.statusCode).toBe(200)
      expect(where(res)).toBe(size === 0 ? 'inline' : 'paid')
      expect(
        res.body.startsWith(`{"ok":true,"data":{"result":{"id":${BIG},"n":2.0,"f":1.10,"e":1E400,"z":-0`),
      ).toBe(true)
    })
  }

  it('a document too deep for the exact parser is refused for its depth, not as invalid JSON', async () => {
    const deep = `${'['.repeat(100_000)}1.0${']'.repeat(100_000)}`
    for (const [url, body] of [
      ['/v1/json/diff', `{"left":${deep},"right":1.0}`],
      ['/v1/json/patch', `{"document":${deep},"patch":[]}`],
    ] as const) {
      const res = await t.post(url, body)
      expect(res.statusCode, url).toBe(400)
      expect(res.json().error.code, url).toBe('ERR_VALIDATION')
    }
  })

  it('other endpoints still read numbers as doubles', async () => {
    const res = await t.post('/v1/id/uuid', '{"count":2.0}')
    expect(res.statusCode).toBe(200)
  })
})

describe('exact numbers through jobs', () => {
  it('json.diff and json.patch jobs keep them; json.format params still take 2.0 as a number', async () => {
    const h = await jobsAppStarter('embedded')()
    try {
      const diff = await h.submit(
        `{"operation":"json.diff","params":{"left":{"id":${BIG}},"right":{"id":12345678901234567891},"output":"json_patch"}}`,
      )
      expect(diff.statusCode).toBe(202)
      const patch = await h.submit(
        `{"operation":"json.patch","params":{"document":{"id":${BIG},"n":1},"patch":[{"op":"replace","path":"/n","value":2}]}}`,
      )
      const format = await h.submit('{"operation":"json.format","params":{"input":"[1]","indent":2.0}}')
      expect(format.statusCode).toBe(202)
      for (const job of [diff, patch, format]) await h.finished(job.json().data.id)
      const text = async (job: typeof diff) => (await h.get(`/v1/jobs/${job.json().data.id}`)).body
      expect(await text(diff)).toContain(
        '"json_patch":[{"op":"replace","path":"/id","value":12345678901234567891}]',
      )
      expect(await text(patch)).toContain(`"result":{"result":{"id":${BIG},"n":2}}`)
      expect((await h.finished(format.json().data.id)).status).toBe('completed')
    } finally {
      await h.close()
    }
  })
})
