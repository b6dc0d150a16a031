import type { Delta } from 'jsondiffpatch'

export interface DiffStats {
  added: number
  removed: number
  changed: number
  moved: number
}

function count(delta: Delta, stats: DiffStats): void {
  if (delta === undefined) return
  if (Array.isArray(delta)) {
    if (delta.length === 1) stats.added++
    else if (delta.length === 2) stats.changed++
    else if (delta[2] === 0) stats.removed++
    else if (delta[2] === 3) stats.moved++
    return
  }
  const isArray = (delta as { _t?: unknown })._t === 'a'
  const members = delta as Record<string, Delta>
  for (const key of Object.keys(members)) {
    if (!(isArray && key === '_t')) count(members[key], stats)
  }
}

// One count per delta leaf: an added or removed subtree counts once, a value replaced by another
// (including a change of type) counts as changed, and an array item that moved counts as moved
// (plus whatever changed inside it).
export function deltaStats(delta: Delta): DiffStats {
  const stats: DiffStats = { added: 0, removed: 0, changed: 0, moved: 0 }
  count(delta, stats)
  return stats
}
