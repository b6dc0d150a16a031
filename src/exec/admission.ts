// Who may put work on a pool: at most `capacity` tasks running or queued on its threads (inFlight), plus
// places held for requests whose bodies are still arriving (reserved). A large request asks for a place
// before a byte of its body is read; when none is free it waits, with its body unread, for up to the
// admission wait: the connection stalls under TCP backpressure and costs the event loop nothing. Past the
// wait it is refused (503). A flood so becomes a slow queue at the door rather than thousands of bodies
// read, decrypted and refused a second.
//
// Shared fairly between workspaces (docs/dispatch.md, "Fair admission"):
// - a workspace holds at most `bodyShare` (half the pool) places for bodies still arriving: a slow client
//   can keep a place until REQUEST_TIMEOUT_MS, so one workspace's unfinished bodies never fill a pool;
//   the rest of it only ever waits for tasks, which end within their compute budget;
// - each workspace waits in its own line, first come first served within it; a place that comes free goes
//   to the waiting workspace that holds the fewest places on the pool (ties: the one waiting longest), so
//   a workspace with one request is not starved by another's long line;
// - a newcomer never jumps a line it may join: it takes a free place at once only when no waiter could.

import { FairTurns } from './fair-turns.ts'

export interface Reservation {
  state: 'waiting' | 'reserved' | 'running' | 'cancelled'
  workspaceId: string
}

interface Waiter {
  reservation: Reservation
  resolve(admitted: boolean): void
  timer: NodeJS.Timeout
  // arrival order across all lines, for ties
  seq: number
}

// One workspace's share of a pool; forgotten as soon as it holds and waits for nothing.
interface Tenant {
  reserved: number
  running: number
  line: Waiter[]
}

export class PoolAdmission {
  readonly capacity: number
  // most places one workspace may hold for bodies still arriving
  readonly bodyShare: number
  // of the tasks in flight, which go to the pool's threads next: at most `threads` at once, round-robin
  // across workspaces (fair-turns.ts)
  readonly turns: FairTurns
  #inFlight = 0
  #reserved = 0
  #waiting = 0
  #seq = 0
  #tenants = new Map<string, Tenant>()
  // shared with the pool's threads, so that a thread does not give back the memory the next large task is
  // about to need (workers/memory.ts): [0] the requests on the pool, whether their bodies are arriving,
  // waiting for a place or running; [1] how many requests have come to it so far (wrapping), which tells
  // a thread whether one came and went between two of its looks at [0]
  readonly #busy: Int32Array | undefined

  constructor(capacity: number, threads = capacity, busy?: Int32Array) {
    this.capacity = capacity
    this.turns = new FairTurns(threads)
    this.bodyShare = Math.max(1, Math.floor(capacity / 2))
    this.#busy = busy
  }

  #publish(): void {
    if (this.#busy) Atomics.store(this.#busy, 0, this.#reserved + this.#waiting + this.#inFlight)
  }

  #arrived(): void {
    if (this.#busy) Atomics.add(this.#busy, 1, 1)
  }

  get inFlight(): number {
    return this.#inFlight
  }

  get reserved(): number {
    return this.#reserved
  }

  get waiting(): number {
    return this.#waiting
  }

  // workspaces holding or waiting for a place (0 when idle: nothing is kept per workspace)
  get tenants(): number {
    return this.#tenants.size
  }

  // places held by one workspace: tasks on the pool and bodies still arriving
  held(workspaceId: string): number {
    const tenant = this.#tenants.get(workspaceId)
    return tenant ? tenant.reserved + tenant.running : 0
  }

  full(): boolean {
    return this.#inFlight + this.#reserved >= this.capacity
  }

  // A place for a request whose body has yet to arrive: at once if there is one it may take, else after
  // waiting up to `waitMs` in its workspace's line. `admitted` is false when none came in time (then
  // `onRefused` is called) or the reservation was cancelled while it waited.
  reserve(
    workspaceId: string,
    waitMs: number,
    onRefused?: () => void,
  ): { reservation: Reservation; admitted: Promise<boolean> } {
    const reservation: Reservation = { state: 'waiting', workspaceId }
    this.#arrived()
    const tenant = this.#tenant(workspaceId)
    if (tenant.line.length === 0 && this.#mayTake(tenant)) {
      this.#take(tenant, reservation)
      return { reservation, admitted: Promise.resolve(true) }
    }
    if (waitMs <= 0) {
      reservation.state = 'cancelled'
      this.#forgetIfIdle(workspaceId, tenant)
      onRefused?.()
      return { reservation, admitted: Promise.resolve(false) }
    }
    const admitted = new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        reservation,
        resolve,
        seq: this.#seq++,
        timer: setTimeout(() => {
          this.#leaveLine(tenant, waiter)
          onRefused?.()
          resolve(false)
        }, waitMs),
      }
      tenant.line.push(waiter)
      this.#waiting++
      this.#publish()
    })
    return { reservation, admitted }
  }

  // Starts a task: on its reservation, or on a free place (false: the pool is full). `workspaceId` counts
  // an unreserved task towards its workspace's places (omitted: counted for the pool only).
  start(reservation?: Reservation, workspaceId?: string): boolean {
    if (reservation?.state === 'reserved') {
      reservation.state = 'running'
      const tenant = this.#tenant(reservation.workspaceId)
      tenant.reserved--
      tenant.running++
      this.#reserved--
      this.#inFlight++
      this.#publish()
      // a body is no longer arriving: its workspace may be back under its share of them
      this.#admitWaiting()
      return true
    }
    if (this.full()) return false
    this.#inFlight++
    this.#arrived()
    this.#publish()
    if (workspaceId !== undefined) this.#tenant(workspaceId).running++
    return true
  }

  // A task ended; `workspaceId` as given to start (or the reservation's).
  finish(workspaceId?: string): void {
    this.#inFlight--
    this.#publish()
    if (workspaceId !== undefined) {
      const tenant = this.#tenants.get(workspaceId)
      if (tenant) {
        tenant.running--
        this.#forgetIfIdle(workspaceId, tenant)
      }
    }
    this.#admitWaiting()
  }

  // The request ended without starting its task (a bad body, a refusal, the client gone, its deadline):
  // its place, or its turn in the line, goes to the next.
  cancel(reservation: Reservation): void {
    const tenant = this.#tenants.get(reservation.workspaceId)
    if (reservation.state === 'reserved' && tenant) {
      tenant.reserved--
      this.#reserved--
      this.#publish()
      this.#forgetIfIdle(reservation.workspaceId, tenant)
      this.#admitWaiting()
    } else if (reservation.state === 'waiting' && tenant) {
      const waiter = tenant.line.find((w) => w.reservation === reservation)
      if (waiter) {
        this.#leaveLine(tenant, waiter)
        waiter.resolve(false)
      }
    }
    reservation.state = 'cancelled'
  }

  #tenant(workspaceId: string): Tenant {
    let tenant = this.#tenants.get(workspaceId)
    if (!tenant) {
      tenant = { reserved: 0, running: 0, line: [] }
      this.#tenants.set(workspaceId, tenant)
    }
    return tenant
  }

  #forgetIfIdle(workspaceId: string, tenant: Tenant): void {
    if (tenant.reserved === 0 && tenant.running === 0 && tenant.line.length === 0) {
      this.#tenants.delete(workspaceId)
    }
  }

  #mayTake(tenant: Tenant): boolean {
    return !this.full() && tenant.reserved < this.bodyShare
  }

  #take(tenant: Tenant, reservation: Reservation): void {
    reservation.state = 'reserved'
    tenant.reserved++
    this.#reserved++
    this.#publish()
  }

  #leaveLine(tenant: Tenant, waiter: Waiter): void {
    clearTimeout(waiter.timer)
    tenant.line.splice(tenant.line.indexOf(waiter), 1)
    this.#waiting--
    this.#publish()
    waiter.reservation.state = 'cancelled'
    this.#forgetIfIdle(waiter.reservation.workspaceId, tenant)
  }

  // Free places go, one at a time, to the first in line of the workspace that may take one and holds the
  // fewest places (ties: whoever has waited longest). A scan of the workspaces waiting on this pool, run
  // when a place comes free: they are at most as many as the requests waiting.
  #admitWaiting(): void {
    while (this.#waiting > 0 && !this.full()) {
      let next: Tenant | undefined
      let nextHeld = 0
      for (const tenant of this.#tenants.values()) {
        if (tenant.line.length === 0 || tenant.reserved >= this.bodyShare) continue
        const held = tenant.reserved + tenant.running
        if (!next || held < nextHeld || (held === nextHeld && tenant.line[0]!.seq < next.line[0]!.seq)) {
          next = tenant
          nextHeld = held
        }
      }
      if (!next) return
      const waiter = next.line.shift()!
      clearTimeout(waiter.timer)
      this.#waiting--
      this.#take(next, waiter.reservation)
      waiter.resolve(true)
    }
  }
}
