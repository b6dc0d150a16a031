import { AppError } from '../../errors.ts'

export type UuidForm = 'standard' | 'compact' | 'urn' | 'braced'

export interface ParsedUuid {
  bytes: Uint8Array
  form: UuidForm
}

const HYPHENATED = 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx'
const COMPACT = 'x'.repeat(32)
const URN = 'urn:uuid:'

function isHex(ch: string): boolean {
  return /^[0-9a-fA-F]$/.test(ch)
}

function invalid(field: string, position: number, reason: string): AppError {
  return new AppError('ERR_INVALID_UUID', `\`${field}\` is not a UUID: ${reason} at position ${position}`, {
    field,
    position,
    reason,
  })
}

function detectForm(text: string): { form: UuidForm; start: number } {
  if (text.slice(0, URN.length).toLowerCase() === URN) return { form: 'urn', start: URN.length }
  if (text.startsWith('{')) return { form: 'braced', start: 1 }
  return { form: text.includes('-') || text.length === 0 ? 'standard' : 'compact', start: 0 }
}

// Accepts 8-4-4-4-12 hex in any letter case, 32 hex digits, "urn:uuid:…" and "{…}" (Microsoft GUID
// form). Anything else is refused at the position (UTF-16 code unit) of the first character that
// cannot belong to a UUID.
export function parseUuid(text: string, field = 'uuid'): ParsedUuid {
  const { form, start } = detectForm(text)
  const template = form === 'compact' ? COMPACT : form === 'braced' ? `${HYPHENATED}}` : HYPHENATED
  for (let i = 0; i < template.length; i++) {
    const ch = text[start + i]
    const at = start + i
    if (ch === undefined) throw invalid(field, at, text.length === 0 ? 'empty string' : 'ended early')
    const want = template[i]!
    const ok = want === 'x' ? isHex(ch) : ch === want
    if (!ok) throw invalid(field, at, want === 'x' ? 'expected a hex digit' : `expected "${want}"`)
  }
  const end = start + template.length
  if (text.length > end) throw invalid(field, end, 'unexpected character after the UUID')
  const hex = text.slice(start, start + HYPHENATED.length).replaceAll('-', '')
  return { bytes: Buffer.from(hex.slice(0, 32), 'hex'), form }
}

export function formatUuid(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
