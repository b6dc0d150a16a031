import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { lazyChildLogger } from '../../src/observability/logger.ts'

// Fastify's per-request logger (childLoggerFactory): bound to the request id, built only when used.
describe('lazy per-request child logger', () => {
  function rootLogger(level = 'info') {
    const lines: Record<string, unknown>[] = []
    const root = pino({ level }, { write: (line: string) => lines.push(JSON.parse(line)) })
    let children = 0
    const counting = new Proxy(root, {
      get(target, prop, receiver) {
        if (prop === 'child') {
          return (...args: Parameters<typeof root.child>) => {
            children++
            return target.child(...args)
          }
        }
        return Reflect.get(target, prop, receiver)
      },
    })
    return { lines, logger: counting, children: () => children }
  }

  it('builds no child until something is logged, then logs through one child with the bindings', () => {
    const { lines, logger, children } = rootLogger()
    const log = lazyChildLogger(logger, { reqId: 'req_1' }, {})
    expect(children()).toBe(0)
    expect(log.level).toBe('info')
    log.error({ code: 'ERR_INTERNAL' }, 'request failed')
    log.warn('twice')
    expect(children()).toBe(1)
    expect(lines).toEqual([
      expect.objectContaining({ level: 50, reqId: 'req_1', code: 'ERR_INTERNAL', msg: 'request failed' }),
      expect.objectContaining({ level: 40, reqId: 'req_1', msg: 'twice' }),
    ])
  })

  it('honours the level and hands out grandchildren with both bindings', () => {
    const { lines, logger } = rootLogger('warn')
    const log = lazyChildLogger(logger, { reqId: 'req_2' }, {})
    log.info('dropped')
    log.child({ part: 'x' }).warn('kept')
    expect(lines).toEqual([expect.objectContaining({ reqId: 'req_2', part: 'x', msg: 'kept' })])
  })
})
