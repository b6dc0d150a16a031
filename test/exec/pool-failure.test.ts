import { describe, expect, it } from 'vitest'
import { classifyPoolFailure } from '../../src/exec/pool-failure.ts'
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
