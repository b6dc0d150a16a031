import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BUDGET_EXCEEDED, QUEUE_TIMEOUT, StartBoard, watchBudget } from '../../src/exec/start-board.ts'
import { markStarted } from '../../workers/boards.ts'

// The compute budget counts from when a thread picks the task up, not from submission (fake clock).
describe('start board and budget watch', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_700_000_000_000 })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('hands out each slot once until it is released, and none beyond capacity', () => {
    const board = new StartBoard(2)
    const a = board.acquire()
    const b = board.acquire()
    expect(new Set([a, b]).size).toBe(2)
    expect(board.acquire()).toBeUndefined()
    board.release(a!)
    expect(board.acquire()).toBe(a)
  })

  it('a reused slot starts out as not started', () => {
    const board = new StartBoard(1)
    const slot = board.acquire()!
    markStarted(board.buffer, slot, Date.now())
    expect(board.startedAt(slot)).toBe(Date.now())
    board.release(slot)
    expect(board.startedAt(board.acquire()!)).toBeUndefined()
  })

  it('does not charge time spent waiting for a thread', () => {
    const board = new StartBoard(1)
    const slot = board.acquire()!
    const controller = new AbortController()
    watchBudget(board, slot, 1_000, 5_000, controller)
    vi.advanceTimersByTime(3_000) // queued for 3 s: three budgets' worth
    expect(controller.signal.aborted).toBe(false)
    markStarted(board.buffer, slot, Date.now())
    vi.advanceTimersByTime(999)
    expect(controller.signal.aborted).toBe(false)
    vi.advanceTimersByTime(1)
    expect(controller.signal.reason).toBe(BUDGET_EXCEEDED)
  })

  it('refuses a task that never got a thread within the wait bound as overload', () => {
    const board = new StartBoard(1)
    const controller = new AbortController()
    watchBudget(board, board.acquire()!, 1_000, 5_000, controller)
    vi.advanceTimersByTime(4_999)
    expect(controller.signal.aborted).toBe(false)
    vi.advanceTimersByTime(1)
    expect(controller.signal.reason).toBe(QUEUE_TIMEOUT)
  })

  it('stops watching once the task is done', () => {
    const board = new StartBoard(1)
    const slot = board.acquire()!
    const controller = new AbortController()
    const stop = watchBudget(board, slot, 1_000, 5_000, controller)
    markStarted(board.buffer, slot, Date.now())
    stop()
    vi.advanceTimersByTime(60_000)
    expect(controller.signal.aborted).toBe(false)
  })
})
