export interface ScenarioRow {
  label: string
  value: number
  unit: string
  p99_ms?: number
}

export interface ScenarioResult {
  rows: ScenarioRow[]
  // ours ÷ baseline, oriented so that higher is better
  ratio: number
}

export interface Scenario {
  name: string
  title: string
  target: { ratio: number; text: string }
  run(): Promise<ScenarioResult>
}
