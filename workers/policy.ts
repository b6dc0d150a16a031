import { execFileSync } from 'node:child_process'
import { readlinkSync } from 'node:fs'

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
