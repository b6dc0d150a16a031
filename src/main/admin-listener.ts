import { join } from 'node:path'
import { readJsonIfExists, writeAtomic } from '../lib/atomic-file.ts'

// Where a gateway's internal listener can be reached, recorded by the gateway in its DATA_DIR when it
// listens, so the admin CLI finds a gateway started with other ports (ADMIN_PORT=19464, ADMIN_PORT=0)
// without being told again. Also says where the gateway's admin token comes from (never the token itself).
export const ADMIN_LISTENER_FILE = 'admin-listener.json'

export interface AdminListenerRecord {
  url: string
  pid: number
  started_at: string
  // the gateway's ADMIN_TOKEN came from its environment, or was generated and saved in token_file
  token: 'environment' | 'file'
  token_file?: string
}

// A listener bound to every interface (ADMIN_HOST 0.0.0.0 in a container) is reached on loopback, a Host
// the listener always answers to (ADMIN_ALLOWED_HOSTS)
export function reachableAdminUrl(host: string, port: number | string): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host
  const shown = reachable.includes(':') && !reachable.startsWith('[') ? `[${reachable}]` : reachable
  return `http://${shown}:${port}`
}

export function adminListenerPath(dataDir: string): string {
  return join(dataDir, ADMIN_LISTENER_FILE)
}

export async function recordAdminListener(dataDir: string, record: AdminListenerRecord): Promise<void> {
  await writeAtomic(adminListenerPath(dataDir), `${JSON.stringify(record, null, 2)}\n`)
}

export async function readAdminListener(dataDir: string): Promise<AdminListenerRecord | undefined> {
  try {
    const record = await readJsonIfExists<AdminListenerRecord>(adminListenerPath(dataDir))
    return typeof record?.url === 'string' ? record : undefined
  } catch {
    // unreadable or not JSON: as if absent (the CLI then says it found none there)
    return undefined
  }
}
