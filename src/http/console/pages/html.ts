// HTML built with template literals, escaped by construction: every interpolated value is escaped
// unless it is itself the output of html`...` (or an array of such), so forgetting to escape is not
// possible, and raw markup from a string has no way in.
const SAFE = Symbol('safe-html')

export interface SafeHtml {
  readonly [SAFE]: true
  readonly value: string
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ENTITIES[c]!)
}

function isSafe(value: unknown): value is SafeHtml {
  return typeof value === 'object' && value !== null && (value as SafeHtml)[SAFE] === true
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return ''
  if (isSafe(value)) return value.value
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

function safe(value: string): SafeHtml {
  return { [SAFE]: true, value }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!
  return safe(out)
}
