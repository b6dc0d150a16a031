import { join } from 'node:path'
import { writeAtomic } from '../lib/atomic-file.ts'

export const FIRST_START_FILE = 'first-start.txt'

export interface FirstStartSecrets {
  // banner lines carrying a secret (the first API key, a generated ADMIN_TOKEN, the curl example)
  lines: string[]
  dataDir: string
  // whether stdout is a terminal a person reads, rather than a pipe into a log pipeline
  terminal: boolean
}

// Secrets shown once at first start reach a person, never a log: on a terminal they are printed in the
// banner; otherwise (stdout piped to a collector, as under systemd, Docker or CI) they go to
// DATA_DIR/first-start.txt, mode 0600, and only that path is printed. Returns the lines to print.
export async function deliverFirstStartSecrets(secrets: FirstStartSecrets): Promise<string[]> {
  if (secrets.lines.length === 0) return []
  if (secrets.terminal) return secrets.lines
  const path = join(secrets.dataDir, FIRST_START_FILE)
  const text = [
    '# Written at the first start of this Anvil gateway. Keep what you need, then delete this file.',
    ...secrets.lines,
    '',
  ].join('\n')
  // a new file (mode 0600 from its creation) renamed over the path: never written through a link there
  await writeAtomic(path, text)
  return ['', `First-start secrets (first API key, admin token) written to ${path} (mode 0600).`]
}
