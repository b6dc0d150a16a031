// Who may put work on a pool: at most `capacity` tasks running or queued on its threads (inFlight), plus
// places held for requests whose bodies are still arriving (reserved). A large request asks for a place
// before a byte of its body is read; when the pool is full it waits its turn, first come first served, for
// up to the admission wait, with its body unread: the connection stalls under TCP backpressure and costs
// the event loop nothing. Past the wait it is refused (503). A flood so becomes a slow queue at the door
// rather than thousands of bodies read, decrypted and refused a second.

export interface Reservation {
  state: 'waiting' | 'reserved' | 'running' | 'cancelled'
}

interface Waiter {
  reservation: Reservation
  resolve(admitted: boolean): void
  timer: NodeJS.Timeout
}

export class PoolAdmission {
  readonly capacity: number
  #inFlight = 0
  #reserved = 0
  #waiters: Waiter[] = []

  constructor(capacity: number) {
    this.capacity = capacity
  }

  get inFlight(): number {
    return this.#inFlight
  }

  get waiting(): number {
    return this.#waiters.length
  }

  full(): boolean {
    return this.#inFlight + this.#reserved >= this.capacity
  }

  // A place for a request whose body has yet to arrive: at once if there is one, else after waiting up to
  // `waitMs` behind the requests already waiting. `admitted` is false when none came free in time (then
  // `onRefused` is called) or the reservation was cancelled while it waited.
  reserve(waitMs: number, onRefused?: () => void): { reservation: Reservation; admitted: Promise<boolean> } {
    const reservation: Reservation = { state: 'waiting' }
    if (this.#waiters.length === 0 && !this.full()) {
      reservation.state = 'reserved'
      this.#reserved++
      return { reservation, admitted: Promise.resolve(true) }
    }
    if (waitMs <= 0) {
      reservation.state = 'cancelled'
      onRefused?.()
      return { reservation, admitted: Promise.resolve(false) }
    }
    const admitted = new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        reservation,
        resolve,
        timer: setTimeout(() => {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1)
          reservation.state = 'cancelled'
          onRefused?.()
          resolve(false)
        }, waitMs),
      }
      this.#waiters.push(waiter)
    })
    return { reservation, admitted }
  }

  // Starts a task: on its reservation, or on a free place (false: the pool is full).
  start(reservation?: Reservation): boolean {
    if (reservation?.state === 'reserved') {
      reservation.state = 'running'
      this.#reserved--
      this.#inFlight++
      return true
    }
    if (this.full()) return false
    this.#inFlight++
    return true
  }

  finish(): void {
    this.#inFlight--
    this.#admitWaiting()
  }

  // The request ended without starting its task (a bad body, a refusal, the client gone): its place, or its
  // turn in the line, goes to the next.
  cancel(reservation: Reservation): void {
    if (reservation.state === 'reserved') {
      this.#reserved--
      this.#admitWaiting()
    } else if (reservation.state === 'waiting') {
      const i = this.#waiters.findIndex((w) => w.reservation === reservation)
      if (i >= 0) {
        const [waiter] = this.#waiters.splice(i, 1)
        clearTimeout(waiter!.timer)
        waiter!.resolve(false)
      }
    }
    reservation.state = 'cancelled'
  }

  #admitWaiting(): void {
    while (this.#waiters.length > 0 && !this.full()) {
      const waiter = this.#waiters.shift()!
      clearTimeout(waiter.timer)
      waiter.reservation.state = 'reserved'
      this.#reserved++
      waiter.resolve(true)
    }
  }
}
