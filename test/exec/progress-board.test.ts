import { expect, it } from 'vitest'
import { ProgressBoard, ProgressProbe } from '../../src/exec/progress-board.ts'
import { reportProgress } from '../../workers/boards.ts'

// A task's progress crosses the thread boundary through its slot: only ever forwards, below 1, per slot.
it('keeps the largest fraction reported per slot, below 1, until the slot is given to another task', () => {
  const board = new ProgressBoard(3)
  expect(board.read(0)).toBeUndefined()
  reportProgress(board.buffer, 0, 0.25)
  reportProgress(board.buffer, 0, 0.1)
  reportProgress(board.buffer, 0, Number.NaN)
  expect(board.read(0)).toBe(0.25)
  expect(board.read(1)).toBeUndefined()
  reportProgress(board.buffer, 1, 1)
  expect(board.read(1)).toBeLessThan(1)
  expect(board.read(1)).toBeGreaterThan(0.999)
  board.reset(0)
  expect(board.read(0)).toBeUndefined()
  reportProgress(board.buffer, 0, 0)
  expect(board.read(0)).toBe(0)

  const probe = new ProgressProbe()
  expect(probe.value()).toBeUndefined()
  probe.attach(() => board.read(1))
  expect(probe.value()).toBe(board.read(1))
  probe.detach()
  expect(probe.value()).toBeUndefined()
})
