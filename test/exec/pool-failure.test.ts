import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  classifyPoolFailure,
  type FailureWording,
  failureError,
  type PoolFailure,
} from '../../src/exec/pool-failure.ts'
import { BUDGET_EXCEEDED, QUEUE_TIMEOUT } from '../../src/exec/start-board.ts'

const abortError = () => Object.assign(new Error('The task has been aborted'), { name: 'AbortError' })

// The one classification of a pool task that came back without a reply, for requests and jobs alike.
describe('classifyPoolFailure', () => {
  it.each([
    ['a full Piscina queue', new Error('Task queue is at limit'), undefined, false, 'overloaded'],
    ['no thread in time', abortError(), QUEUE_TIMEOUT, false, 'overloaded'],
    ['the budget', abortError(), BUDGET_EXCEEDED, false, 'timeout'],
    ['the caller stopping', abortError(), undefined, true, 'stopped'],
    [
      'an ABORT_ERR code',
      Object.assign(new Error('x'), { code: 'ABORT_ERR' }),
      BUDGET_EXCEEDED,
      false,
      'timeout',
    ],
    [
      'a thread out of memory',
      Object.assign(new Error('oom'), { code: 'ERR_WORKER_OUT_OF_MEMORY' }),
      undefined,
      false,
      'oom',
    ],
    [
      'structured clone recursion',
      new RangeError('Maximum call stack size exceeded'),
      undefined,
      false,
      'unclonable',
    ],
    ['anything else', new TypeError('bug'), undefined, false, 'crash'],
  ])('%s → %s', (_what, err, reason, stopped, kind) => {
    expect(classifyPoolFailure(err, reason, stopped)).toBe(kind)
  })
})

// The one table from a pool failure to the client's error, used by the dispatcher, streamed bodies, job
// runs and job submissions alike.
describe('failureError (the one table)', () => {
  const wording = { subject: 'The operation', pool: 'paid' }
  const answer = (failure: PoolFailure, w: FailureWording = wording) => {
    const err = failureError(failure, w)
    return {
      status: err.statusCode,
      code: err.code,
      message: err.message,
      details: err.details,
      headers: err.headers,
    }
  }

  it('answers every kind with its code, status and details', () => {
    expect(answer({ kind: 'overloaded' })).toEqual({
      status: 503,
      code: 'ERR_OVERLOADED',
      message: 'The service is overloaded; retry shortly.',
      details: { pool: 'paid' },
      headers: { 'retry-after': '1' },
    })
    expect(answer({ kind: 'overloaded' }, { subject: 'The operation' }).details).toBeUndefined()
    expect(answer({ kind: 'timeout', budgetMs: 150 })).toMatchObject({
      status: 422,
      code: 'ERR_COMPUTE_LIMIT',
      message: "The operation exceeded the plan's 150 ms compute budget.",
      details: { reason: 'time', budget_ms: 150 },
    })
    expect(answer({ kind: 'timeout', budgetMs: 150, bytesProcessed: 42 }).details).toEqual({
      reason: 'time',
      budget_ms: 150,
      bytes_processed: 42,
    })
    expect(answer({ kind: 'oom' }, { subject: 'The job' })).toMatchObject({
      status: 422,
      code: 'ERR_COMPUTE_LIMIT',
      message: "The job exceeded the plan's memory budget.",
      details: { reason: 'memory' },
    })
    for (const kind of ['crash', 'stopped', 'unclonable'] as const) {
      const cause = new Error('bug')
      const err = failureError({ kind, cause }, wording)
      expect([err.statusCode, err.code, err.details, err.cause]).toEqual([
        500,
        'ERR_INTERNAL',
        undefined,
        cause,
      ])
    }
  })

  it("keeps the task's own refusal, and shows a code this version does not know as ERR_INTERNAL", () => {
    const own = { code: 'ERR_PATCH_TEST_FAILED', message: 'no', details: { index: 0 } }
    expect(answer({ kind: 'refused', error: own })).toMatchObject({ status: 400, ...own })
    expect(answer({ kind: 'refused', error: { code: 'ERR_FROM_THE_FUTURE', message: 'x' } })).toMatchObject({
      status: 500,
      code: 'ERR_INTERNAL',
      message: 'Something went wrong on our side.',
    })
  })

  it('is the only translation: no other module builds these answers or guards unknown codes', () => {
    const root = new URL('../../', import.meta.url).pathname
    const sources = (dir: string): string[] =>
      readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => `${dir}/${f}`)
    const where = (pattern: RegExp) =>
      [...sources('src'), ...sources('workers')].filter((f) =>
        pattern.test(readFileSync(join(root, f), 'utf8')),
      )
    expect(where(/new AppError\('ERR_OVERLOADED'/)).toEqual(['src/exec/pool-failure.ts'])
    expect(where(/Object\.hasOwn\(ERRORS/)).toEqual(['src/errors.ts'])
    expect(where(/classifyPoolFailure\(/).sort()).toEqual(['src/exec/pool-failure.ts', 'src/exec/submit.ts'])
    expect(where(/piscina\.run\(/)).toEqual(['src/exec/submit.ts'])
    expect(where(/"ok":true/)).toEqual(['src/lib/envelope.ts'])
  })
})
