import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { readJsonIfExists, writeAtomic } from '../../lib/atomic-file.ts'
import { StartupError } from '../../lib/startup-error.ts'

// what an operator can do about a damaged token file: the CLI reads it, so a new one changes the token
const ADVICE =
  'Restore it from a backup, or delete it to have a new admin token generated at the next start (scripts ' +
  'that send the old one must then use the new one), or set ADMIN_TOKEN.'

// ADMIN_TOKEN if set; otherwise one generated at first start and kept (mode 0600) under DATA_DIR,
// so `npm run admin` on the same machine finds it. A file that holds no token stops the start with a
// message naming it (StartupError) rather than being replaced: the token it held may be in use.
export async function resolveAdminToken(
  configured: string | undefined,
  dataDir: string,
): Promise<{ token: string; generated: boolean; fromEnvironment: boolean; path: string }> {
  const path = join(dataDir, 'admin-token.json')
  if (configured) return { token: configured, generated: false, fromEnvironment: true, path }
  const stored = await readJsonIfExists<unknown>(path, ADVICE)
  if (stored !== undefined) {
    const token = (stored as { token?: unknown } | null)?.token
    if (typeof token !== 'string' || token === '') {
      throw new StartupError(`${path} is damaged: it holds no "token" string. ${ADVICE}`)
    }
    return { token, generated: false, fromEnvironment: false, path }
  }
  const token = `adm_${randomBytes(24).toString('base64url')}`
  await writeAtomic(path, JSON.stringify({ token }))
  return { token, generated: true, fromEnvironment: false, path }
}
