import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { readJsonIfExists, writeAtomic } from '../../lib/atomic-file.ts'

// ADMIN_TOKEN if set; otherwise one generated at first start and kept (mode 0600) under DATA_DIR,
// so `npm run admin` on the same machine finds it.
export async function resolveAdminToken(
  configured: string | undefined,
  dataDir: string,
): Promise<{ token: string; generated: boolean; fromEnvironment: boolean; path: string }> {
  const path = join(dataDir, 'admin-token.json')
  if (configured) return { token: configured, generated: false, fromEnvironment: true, path }
  const stored = await readJsonIfExists<{ token: string }>(path)
  if (stored?.token) return { token: stored.token, generated: false, fromEnvironment: false, path }
  const token = `adm_${randomBytes(24).toString('base64url')}`
  await writeAtomic(path, JSON.stringify({ token }))
  return { token, generated: true, fromEnvironment: false, path }
}
