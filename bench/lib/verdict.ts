import type { ScenarioResult } from './scenario.ts'

// What one scenario produced in a run: its figures, or why it could not produce them.
export interface ScenarioOutcome {
  name: string
  title: string
  target: { ratio: number; text: string }
  result?: ScenarioResult
  error?: string
}

// A target whose text starts with "informational" describes a trade-off to watch, not a bar to clear.
export function informational(o: ScenarioOutcome): boolean {
  return /^informational\b/i.test(o.target.text)
}

export function meets(o: ScenarioOutcome): boolean {
  return o.result !== undefined && o.result.ratio >= o.target.ratio
}

export function verdict(o: ScenarioOutcome): string {
  if (!o.result) return 'did not run'
  if (informational(o)) return 'informational'
  return meets(o) ? 'meets' : '**misses**'
}
