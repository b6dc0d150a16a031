import { Readable } from 'node:stream'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SLICE_ABOVE, sliced } from '../../../src/http/answer/large-answers.ts'

// sliced() as an onSend hook of the app, as the lane's answer step applies it (src/http/answer/answer.ts)
async function largeAnswers(app: FastifyInstance): Promise<void> {
  app.addHook('onSend', function sliceLargeAnswer(_request, reply, payload, done) {
    done(null, sliced(reply, payload))
  })
}

// An answer larger than SLICE_ABOVE leaves as a stream of 64 KiB views, one per turn of the event loop, so
// its TLS encryption never holds the loop in one go (docs/dispatch.md, "Large answers").
const big = Buffer.alloc(SLICE_ABOVE * 4 + 123, 0x61)
const small = Buffer.alloc(SLICE_ABOVE, 0x62)
const app = Fastify()
const seen: { stream: boolean; length: unknown }[] = []

beforeAll(async () => {
  await largeAnswers(app)
  // a route-level onSend hook runs after the app's: it sees what the hook made of the payload
  const observe = (
    _req: unknown,
    reply: { getHeader(n: string): unknown },
    payload: unknown,
    done: (err: null, value: unknown) => void,
  ) => {
    seen.push({ stream: payload instanceof Readable, length: reply.getHeader('content-length') })
    done(null, payload)
  }
  app.get('/big', { onSend: observe }, async (_req, reply) =>
    reply.type('application/octet-stream').send(big),
  )
  app.get('/small', { onSend: observe }, async (_req, reply) =>
    reply.type('application/octet-stream').send(small),
  )
  await app.ready()
})
afterAll(() => app.close())

describe('large answers leave in slices', () => {
  it('an answer over the threshold becomes a stream with its Content-Length, and arrives whole', async () => {
    seen.length = 0
    const res = await app.inject({ method: 'GET', url: '/big' })
    expect(seen).toEqual([{ stream: true, length: big.length }])
    expect(res.headers['content-length']).toBe(String(big.length))
    expect(res.rawPayload.equals(big)).toBe(true)
  })

  it('an answer at the threshold is sent as it is', async () => {
    seen.length = 0
    const res = await app.inject({ method: 'GET', url: '/small' })
    expect(seen).toEqual([{ stream: false, length: undefined }])
    expect(res.rawPayload.equals(small)).toBe(true)
  })

  it('pieces are views of at most 64 KiB, and other work runs between two of them', async () => {
    let stream: Readable | undefined
    const local = Fastify()
    await largeAnswers(local)
    local.get('/big', {
      onSend: (_req, _reply, payload, done) => {
        stream = payload as Readable
        done(null, Buffer.alloc(0))
      },
      handler: async (_req, reply) => reply.send(big),
    })
    await local.inject({ method: 'GET', url: '/big' })
    const pieces: number[] = []
    let turns = 0
    let counting = true
    const tick = () => {
      turns++
      if (counting) setImmediate(tick)
    }
    setImmediate(tick)
    for await (const piece of stream!) {
      expect((piece as Buffer).buffer).toBe(big.buffer)
      pieces.push((piece as Buffer).length)
    }
    counting = false
    await local.close()
    expect(pieces.reduce((a, b) => a + b, 0)).toBe(big.length)
    expect(Math.max(...pieces)).toBeLessThanOrEqual(64 * 1024)
    // one piece per turn of the event loop: the other immediates ran at least once between pieces
    expect(turns).toBeGreaterThanOrEqual(pieces.length - 1)
  })
})
