import type { Store } from '../../src/store/types.ts'

// A real store, wrapped to count calls per method: proves which requests reach the store at all.
export function countingStore(inner: Store): { store: Store; calls: Map<string, number> } {
  const calls = new Map<string, number>()
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        calls.set(String(prop), (calls.get(String(prop)) ?? 0) + 1)
        return value.apply(target, args)
      }
    },
  })
  return { store, calls }
}
