import { randomBase62 } from '../lib/ids.ts'

// Unguessable, prefixed ids (Stripe style), so a log line says what kind of thing an id names.
export function newId(prefix: 'ws' | 'prj' | 'env' | 'key'): string {
  return `${prefix}_${randomBase62(20)}`
}
