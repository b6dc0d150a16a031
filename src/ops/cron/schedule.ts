import { nextWall, prevWall } from './match.ts'
import type { CronSpec } from './parse.ts'
import { type Resolution, resolveWall, wallAt } from './zone.ts'

export type Direction = 'next' | 'previous'

// DST policy of Vixie cron. A job whose hour field has no * and no step is a fixed-time job: a time in a
// spring-forward gap runs once, at the instant the gap ends; a time repeated by a fall-back runs only at
// its first occurrence. Any other job runs at every real instant that matches: nothing inside a gap,
// both occurrences inside an overlap.

type Overlap = Extract<Resolution, { kind: 'overlap' }>

function* wallsUp(spec: CronSpec, start: number, end: number): Generator<number> {
  for (let w = nextWall(spec, start); w !== null && w < end; w = nextWall(spec, w + 1)) yield w
}

function* wallsDown(spec: CronSpec, start: number, end: number): Generator<number> {
  for (let w = prevWall(spec, end - 1); w !== null && w >= start; w = prevWall(spec, w - 1)) yield w
}

// Inside an overlap the first occurrences (old offset) all come before the second ones (new offset).
function* overlapUp(spec: CronSpec, r: Overlap, fixed: boolean): Generator<number> {
  for (const w of wallsUp(spec, r.start, r.end)) yield w - r.before
  if (!fixed) for (const w of wallsUp(spec, r.start, r.end)) yield w - r.after
}

function* overlapDown(spec: CronSpec, r: Overlap, fixed: boolean): Generator<number> {
  if (!fixed) for (const w of wallsDown(spec, r.start, r.end)) yield w - r.after
  for (const w of wallsDown(spec, r.start, r.end)) yield w - r.before
}

// Candidate instants in ascending order, starting near `from` (callers drop those not after it).
function* forward(spec: CronSpec, zone: string, from: number): Generator<number> {
  const fixed = !spec.fields.hour.stepped
  const here = resolveWall(zone, wallAt(zone, from))
  // from inside an overlap: second occurrences of earlier wall times may still lie ahead
  let wall = nextWall(spec, here.kind === 'overlap' ? here.start : wallAt(zone, from))
  while (wall !== null) {
    const r = resolveWall(zone, wall)
    if (r.kind === 'unique') {
      yield r.at
    } else if (r.kind === 'gap') {
      if (fixed) yield r.at
    } else {
      yield* overlapUp(spec, r, fixed)
    }
    wall = nextWall(spec, r.kind === 'unique' ? wall + 1 : Math.max(r.end, wall + 1))
  }
}

function* backward(spec: CronSpec, zone: string, from: number): Generator<number> {
  const fixed = !spec.fields.hour.stepped
  const here = resolveWall(zone, wallAt(zone, from))
  // from inside an overlap: first occurrences of later wall times may still lie behind
  let wall = prevWall(spec, here.kind === 'overlap' ? here.end - 1 : wallAt(zone, from))
  while (wall !== null) {
    const r = resolveWall(zone, wall)
    if (r.kind === 'unique') {
      yield r.at
    } else if (r.kind === 'gap') {
      if (fixed) yield r.at
    } else {
      yield* overlapDown(spec, r, fixed)
    }
    wall = prevWall(spec, r.kind === 'unique' ? wall - 1 : Math.min(r.start - 1, wall - 1))
  }
}

// Up to `count` run instants (epoch seconds) strictly after (next) or strictly before (previous) fromMs,
// in that direction's order. Fewer when the search reaches the years 1 or 9999.
export function scheduleRuns(
  spec: CronSpec,
  zone: string,
  fromMs: number,
  count: number,
  direction: Direction,
): number[] {
  const runs: number[] = []
  const up = direction === 'next'
  const from = up ? Math.floor(fromMs / 1000) : Math.ceil(fromMs / 1000)
  const candidates = up ? forward(spec, zone, from) : backward(spec, zone, from)
  for (const t of candidates) {
    const last = runs.at(-1)
    // several gap times share one instant: keep it once
    const fresh = up
      ? t * 1000 > fromMs && (last === undefined || t > last)
      : t * 1000 < fromMs && (last === undefined || t < last)
    if (fresh) runs.push(t)
    if (runs.length >= count) break
  }
  return runs
}
