// The known name closest to a mistyped one, for "did you mean" hints: optimal-string-alignment distance
// (Levenshtein plus adjacent transposition, so "outptu" is one edit from "output"), case-insensitive, at
// most 2 edits and never more than a third of the name, so a short unrelated name is not "corrected".
export function closestName(name: string, known: readonly string[]): string | undefined {
  const typed = name.toLowerCase()
  const limit = Math.min(2, Math.floor(typed.length / 3))
  if (limit === 0 || typed.length > 64) return undefined
  let best: string | undefined
  let bestDistance = limit + 1
  for (const candidate of known) {
    const d = editDistance(typed, candidate.toLowerCase(), bestDistance)
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}

// Optimal string alignment distance, giving up (returning `cap`) once every path costs `cap` or more.
export function editDistance(a: string, b: string, cap = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) >= cap) return cap
  let before = new Array<number>(b.length + 1).fill(0)
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, before[j - 2]! + 1)
      current.push(d)
      if (d < rowMin) rowMin = d
    }
    if (rowMin >= cap) return cap
    before = previous
    previous = current
  }
  return Math.min(previous[b.length]!, cap)
}
