import { execFileSync } from 'node:child_process'
import { readlinkSync, stat } from 'node:fs'

// Linux only, best effort: puts the calling thread in the SCHED_IDLE class, which runs only when no
// ordinary thread wants the CPU and is preempted at once when one does. Nice values only weight the
// share: a niced thread still holds its core until the scheduler's slice ends, which is milliseconds of
// latency for the event loop when both cores are busy. Returns whether it took effect.
export function idleSchedulingForThisThread(): boolean {
  if (process.platform !== 'linux') return false
  try {
    // /proc/thread-self -> "<pid>/task/<tid>"
    const tid = readlinkSync('/proc/thread-self').split('/').pop()!
    execFileSync('chrt', ['--idle', '--pid', '0', tid], { stdio: 'ignore', timeout: 2_000 })
    return true
  } catch {
    return false
  }
}

// libuv's threadpool (fs, crypto, zlib, DNS for the whole process, event loop included) starts its threads
// when work is first queued on it, from the thread that queued it, and Linux threads inherit the creating
// thread's policy: started by a pool thread under SCHED_IDLE, every threadpool thread would run idle too,
// and the event loop's compression and file work with it. So the event loop queues a trivial job before any
// pool thread exists (createPools), which starts the threadpool from here.
export function startThreadpoolOnThisThread(): void {
  stat('.', () => {})
}
