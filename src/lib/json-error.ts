// Where JSON.parse stopped, as {line, column, offset}: offset counts UTF-16 code units from 0,
// line and column count from 1.
export function locate(text: string, offset: number): { line: number; column: number; offset: number } {
  const at = Math.max(0, Math.min(offset, text.length))
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) {
    line++
    lineStart = i + 1
  }
  return { line, column: at - lineStart + 1, offset: at }
}

export function jsonParseErrorOffset(err: unknown, text: string): number {
  const m = /position (\d+)/.exec(err instanceof Error ? err.message : '')
  return m ? Number(m[1]) : text.length
}
