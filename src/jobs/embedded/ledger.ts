import { type Reservation, reserve, type StorageBudgets } from '../storage.ts'

// The embedded backend's job storage ledger: one count per job, totals per workspace and for the store,
// changed synchronously (one event-loop turn: concurrent submissions cannot both take the last room). A
// job leaves when its files are deleted (expired, or read after its expiry), so the counts follow the disk.
export class MemoryLedger {
  #jobs = new Map<string, { workspaceId: string; bytes: number }>()
  #held = new Map<string, number>()
  #total = 0

  // a job's count grows (or shrinks) to `bytes` when both budgets have room
  reserve(workspaceId: string, id: string, bytes: number, max: StorageBudgets): Reservation {
    const held = { workspace: this.held(workspaceId), store: this.#total }
    const room = reserve(held, this.#jobs.get(id)?.bytes ?? 0, bytes, max)
    if (room.ok) this.set(workspaceId, id, bytes)
    return room
  }

  // a job's count as its files now hold it, whatever the budgets
  set(workspaceId: string, id: string, bytes: number): void {
    this.release(id)
    this.#jobs.set(id, { workspaceId, bytes })
    this.#add(workspaceId, bytes)
  }

  release(id: string): void {
    const entry = this.#jobs.get(id)
    if (!entry) return
    this.#jobs.delete(id)
    this.#add(entry.workspaceId, -entry.bytes)
  }

  held(workspaceId: string): number {
    return this.#held.get(workspaceId) ?? 0
  }

  get total(): number {
    return this.#total
  }

  #add(workspaceId: string, delta: number): void {
    const next = this.held(workspaceId) + delta
    if (next > 0) this.#held.set(workspaceId, next)
    else this.#held.delete(workspaceId)
    this.#total += delta
  }
}
