import type { Reporter, TestModule } from 'vitest/node'

// Vitest says only "Worker exited unexpectedly" when a test file's fork dies mid-file (a signal, a native
// abort, V8 out of memory, process.exit), without naming the file (one CI run of 283 files ended so). This
// reporter, beside the default one, names every file that started and never ended, last, where a CI log's
// tail shows it.
export default class ForkDeaths implements Reporter {
  readonly #running = new Map<string, string>()

  onTestModuleStart(module: TestModule): void {
    this.#running.set(module.moduleId, module.relativeModuleId)
  }

  onTestModuleEnd(module: TestModule): void {
    this.#running.delete(module.moduleId)
  }

  onTestRunEnd(): void {
    for (const file of this.#running.values()) {
      process.stderr.write(`\nA test file started and never ended (its fork died): ${file}\n`)
    }
  }
}
