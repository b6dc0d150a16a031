import { statfs } from 'node:fs/promises'

// The share of the disk space available to DATA_DIR when the gateway starts that job files may take, when
// JOBS_MAX_STORAGE_BYTES is not set (docs/jobs.md, "Job storage"): the rest stays for the store's journal
// and snapshots, so a full job storage refuses jobs (503 ERR_JOB_STORAGE_FULL) and never a key change.
export const DISK_SHARE = 1 / 2

export async function diskBudget(dataDir: string, configured: number | undefined): Promise<number> {
  if (configured !== undefined) return configured
  const fs = await statfs(dataDir)
  return Math.floor(fs.bavail * fs.bsize * DISK_SHARE)
}
