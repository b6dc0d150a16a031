import { hash } from 'node:crypto'
import { crc32 } from 'node:zlib'
import { randomBase62, toBase62 } from '../lib/ids.ts'
import type { KeyMode } from '../store/types.ts'

export type { KeyMode }

const BODY_LENGTH = 30
const CHECKSUM_LENGTH = 6
const KEY_PATTERN = /^anvil_(live|test)_[0-9A-Za-z]{36}$/
export const KEY_LENGTH = 'anvil_live_'.length + BODY_LENGTH + CHECKSUM_LENGTH

export function checksum(text: string): string {
  return toBase62(crc32(text), CHECKSUM_LENGTH)
}

export function generateKey(mode: KeyMode): string {
  const head = `anvil_${mode}_${randomBase62(BODY_LENGTH)}`
  return head + checksum(head)
}

// Format and checksum only: a typo or a truncated key is refused here, before any store look-up.
export function parseKey(raw: string): { mode: KeyMode } | undefined {
  if (raw.length !== KEY_LENGTH || !KEY_PATTERN.test(raw)) return undefined
  const head = raw.slice(0, KEY_LENGTH - CHECKSUM_LENGTH)
  if (checksum(head) !== raw.slice(KEY_LENGTH - CHECKSUM_LENGTH)) return undefined
  return { mode: raw.startsWith('anvil_live_') ? 'live' : 'test' }
}

// Keys carry ~178 random bits, so a fast unsalted hash is enough to make the stored form useless to a thief.
export function hashKey(key: string): string {
  return hash('sha256', key, 'base64url')
}

// What people see in lists to tell keys apart: the mode prefix and the first 6 random characters.
export function keyPrefix(key: string): string {
  return key.slice(0, 'anvil_live_'.length + 6)
}
