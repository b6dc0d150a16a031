// One instance of each class a heavy op's hot code makes, kept for the life of the thread.
//
// V8 reaches the hidden class ("map") of a class's instances, with its fields, only through those
// instances: once none lives, a full collection frees it, and with it every optimized function compiled
// for it ("embedded weak objects cleared"). A pool thread runs exactly such a collection after a large
// task (workers/memory.ts), when nothing of the task is left: the next 100k-item diff compiled ~28
// functions again and ran them unoptimized meanwhile (100-150 ms more process CPU, docs/dispatch.md). A kept
// instance keeps its class's map, so the code compiled for it stays valid from one request to the next.
const kept: object[] = []

// Keeps `instance`, made as the op makes them (its fields set in the same order, of the same kinds).
export function keepShape(instance: object): void {
  kept.push(instance)
}
