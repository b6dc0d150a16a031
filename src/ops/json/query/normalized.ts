import type { PathLink } from './evaluate.ts'

// A node's Normalized Path (RFC 9535 §2.7): $, then ['name'] or [index] per step, names in single quotes
// with only \b \f \n \r \t \' \\ and \u00XX (lowercase hex, the other control characters) escaped.
export function normalizedPath(path: PathLink | undefined): string {
  const keys: (string | number)[] = []
  for (let link = path; link !== undefined; link = link.parent) keys.push(link.key)
  let out = '$'
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!
    out += typeof key === 'number' ? `[${key}]` : `['${escapeName(key)}']`
  }
  return out
}

const ESCAPES: Record<string, string> = {
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  "'": "\\'",
  '\\': '\\\\',
}

function escapeName(name: string): string {
  return name.replace(
    /[\u0000-\u001f'\\]/g,
    (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}
