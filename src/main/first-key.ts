import { unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { readJsonIfExists, writeAtomic } from '../lib/atomic-file.ts'

// The first API key is shown once and only its hash is stored, so a start that created it and stopped
// before showing it (killed in between, or a first-start.txt it could not write) has lost it for good.
// That start leaves this marker in DATA_DIR from just before the key is made until it has been shown; the
// next start finds it and says how to make another key, where it used to say nothing.
export const FIRST_KEY_PENDING_FILE = 'first-key.pending.json'

export interface PendingFirstKey {
  workspace_id: string
  created_at: string
}

const pathOf = (dataDir: string) => join(dataDir, FIRST_KEY_PENDING_FILE)

export async function markFirstKeyPending(dataDir: string, workspaceId: string): Promise<void> {
  const record: PendingFirstKey = { workspace_id: workspaceId, created_at: new Date().toISOString() }
  await writeAtomic(pathOf(dataDir), `${JSON.stringify(record)}\n`)
}

// the key was shown (printed, or written to first-start.txt), or the loss has been reported
export async function clearFirstKeyPending(dataDir: string): Promise<void> {
  await unlink(pathOf(dataDir)).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err
  })
}

export async function pendingFirstKey(dataDir: string): Promise<PendingFirstKey | undefined> {
  try {
    const record = await readJsonIfExists<PendingFirstKey>(pathOf(dataDir))
    return typeof record?.workspace_id === 'string' ? record : undefined
  } catch {
    // unreadable: a key was still pending, of a workspace we cannot name
    return { workspace_id: '<workspace id>', created_at: '' }
  }
}

// How a person makes a key by hand: the admin CLI, run where the gateway runs (it finds the gateway and
// its token in DATA_DIR), or the console.
export function makeKeyCommand(workspaceId: string): string {
  return `npm run admin -- keys create --workspace ${workspaceId}`
}

// The banner's lines when this start showed no key.
export function noKeyShownLines(pending: PendingFirstKey | undefined): string[] {
  if (pending) {
    return [
      '',
      `The first API key (workspace ${pending.workspace_id}) was created at an earlier start that stopped before`,
      'showing it; only its hash is stored, so it cannot be shown again. Make another one:',
      `  ${makeKeyCommand(pending.workspace_id)}`,
    ]
  }
  return [
    `  API keys:      ${makeKeyCommand('<id>')} (ids: npm run admin -- workspaces list), or the console`,
  ]
}
