// Child process for memory-journal.test.ts: opens the embedded store on argv[2] and then either
// creates `count` workspaces and dies without closing (a crash), or reports how opening went.
import { MemoryStore } from '../../src/store/memory/memory-store.ts'

const [dir, mode, count] = process.argv.slice(2) as [string, 'crash' | 'open', string]
try {
  const store = await MemoryStore.open({ dataDir: dir })
  if (mode === 'crash') {
    for (let i = 0; i < Number(count); i++) await store.createWorkspace({ name: `crash-${i}`, plan: 'free' })
    process.stdout.write('written\n')
    process.kill(process.pid, 'SIGKILL')
  }
  process.stdout.write('opened\n')
  await store.close()
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`)
  process.exit(3)
}
