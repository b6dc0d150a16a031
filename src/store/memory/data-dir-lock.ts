import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError'
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: it exists but belongs to another user
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

// One process owns an embedded DATA_DIR: two writing the same store log would interleave lines and each
// replay only its own view. DATA_DIR/.lock holds the owner's pid, created exclusively; a lock whose pid is
// no longer running (a crash, a kill -9) is stale and taken over. Returns the release function.
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const path = join(dir, '.lock')
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(path, `${process.pid}\n`, { flag: 'wx', mode: 0o600 })
      return async function releaseDataDir() {
        await unlink(path).catch(() => {})
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    const pid = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10)
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
      throw new DataDirInUseError(
        `DATA_DIR ${dir} is in use by process ${pid} (${path}). Each gateway on the embedded store needs ` +
          'its own DATA_DIR; to run several, use Redis (REDIS_URL).',
      )
    }
    // stale: its owner is gone (or the file is empty, from a crash between create and write)
    await unlink(path).catch(() => {})
  }
  throw new DataDirInUseError(`could not take the lock ${path}`)
}
