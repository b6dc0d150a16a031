import { readdirSync, readFileSync } from 'node:fs'
import { defineConfig } from 'vitest/config'

// Test files run one after another in one process (isolate: false), where each had a process of its own:
// a fork and its imports cost about 0.6 s a file, and the whole suite ran in 1,218 s against 1,427 s the
// same hour (docs/decisions.md, "Test files share a process"). Two kinds of file still get a process of
// their own: one that replaces modules (`vi.mock`: its mocks must not reach the others, and vitest mocks
// only there), and one that bounds this process's own CPU time, memory or event-loop delay, or looks at its
// threads, which what earlier files left in it would count or hide (a free pool's refusal read 628 ms of
// process CPU against 250 so; the libuv threadpool a pool must start from the event loop would already be
// there).
const OWN_PROCESS =
  /\bvi\.(do)?[mM]ock\(|process\.cpuUsage|processCpuMs|memoryUsage\(|getHeapStatistics|\/proc\/self\/|monitorEventLoopDelay|eventLoopUtilization/
const ROOT = import.meta.dirname
const files = readdirSync(`${ROOT}/test`, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts') && !f.split('/').includes('node_modules'))
  .map((f) => `test/${f}`)
const ownProcess = files.filter((f) => OWN_PROCESS.test(readFileSync(`${ROOT}/${f}`, 'utf8')))

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: { LOG_LEVEL: 'silent' },
    // a fork that dies mid-file is named at the end of the run (vitest does not say which file it ran)
    reporters: ['default', './test/setup/fork-deaths.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared-process',
          include: ['test/**/*.test.ts'],
          // the leak check's planted files (test/setup/leaks.test.ts) only in the run that test makes: one
          // a killed run left behind is never collected
          exclude: [
            '**/node_modules/**',
            ...ownProcess,
            ...(process.env.LEAK_CHECK_PLANTED ? [] : ['test/setup/zz-planted-*']),
          ],
          isolate: false,
          // fails a file that leaves a server, a client, a child, a timer or an environment change behind
          setupFiles: ['./test/setup/leaks.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'own-process', include: ownProcess, isolate: true, sequence: { groupOrder: 1 } },
      },
    ],
  },
})
