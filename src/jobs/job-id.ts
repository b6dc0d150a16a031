import { randomBase62 } from '../lib/ids.ts'

// 24 base62 characters: 142 random bits, so an id cannot be guessed; the workspace check is the second wall.
const PATTERN = /^job_[0-9A-Za-z]{24}$/

export function newJobId(): string {
  return `job_${randomBase62(24)}`
}

export function isJobId(id: string): boolean {
  return PATTERN.test(id)
}
