import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: { LOG_LEVEL: 'silent' },
    // a fork that dies mid-file is named at the end of the run (vitest does not say which file it ran)
    reporters: ['default', './test/setup/fork-deaths.ts'],
  },
})
