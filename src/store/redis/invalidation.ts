import type { Redis } from 'ioredis'
import type { StoreEvent } from '../types.ts'
import { type ConnectionPolicy, createSubscriber, type RedisTarget } from './client.ts'

type Listener = (event: StoreEvent) => void

// The subscriber connection is pinged this often; it counts as live only while its last answer is
// more recent than LIVE_WITHIN_MS, so a connection that dies silently (no FIN, a partition) stops
// counting as live within about a second, like one that is closed.
const HEARTBEAT_MS = 250
const LIVE_WITHIN_MS = 1_000

function parseEvent(message: string): { event: StoreEvent; origin: unknown } | undefined {
  let m: { type?: unknown; hash?: unknown; id?: unknown; origin?: unknown }
  try {
    m = JSON.parse(message) as typeof m
  } catch {
    return undefined
  }
  if (m.type === 'key' && typeof m.hash === 'string')
    return { event: { type: 'key', hash: m.hash }, origin: m.origin }
  if (m.type === 'workspace' && typeof m.id === 'string') {
    return { event: { type: 'workspace', id: m.id }, origin: m.origin }
  }
  return undefined
}

// Cache invalidation between gateways. Changes are announced by the scripts that make them (PUBLISH on
// the invalidation channel); every store listens on a connection of its own. The store that made a
// change tells its own listeners at once and skips its echo. A subscription that was interrupted may
// have missed messages, so every re-subscription is followed by a 'reset' event (drop everything).
export class Invalidation {
  readonly origin: string
  #listeners = new Set<Listener>()
  #target: RedisTarget
  #policy: ConnectionPolicy
  #channel: string
  #nodes: () => { host: string; port: number }[]
  #next = 0
  #sub: Redis | undefined
  #subscribed = false
  #everSubscribed = false
  #closed = false
  #onSubscribed: (() => void) | undefined
  #lastAck = 0
  #heartbeat: NodeJS.Timeout | undefined
  #pinging = false

  constructor(options: {
    target: RedisTarget
    policy: ConnectionPolicy
    channel: string
    origin: string
    // cluster nodes to rotate through when the current one stops answering
    nodes: () => { host: string; port: number }[]
  }) {
    this.#target = options.target
    this.#policy = options.policy
    this.#channel = options.channel
    this.origin = options.origin
    this.#nodes = options.nodes
  }

  get subscribed(): boolean {
    return this.#subscribed
  }

  // subscribed, and the subscriber connection answered within the last second
  get live(): boolean {
    return this.#subscribed && performance.now() - this.#lastAck <= LIVE_WITHIN_MS
  }

  // Resolves once subscribed, or rejects after `waitMs` (the connection keeps trying in the background).
  start(waitMs: number): Promise<void> {
    this.#connect()
    if (this.#subscribed) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#onSubscribed = undefined
        reject(new Error(`no subscription to ${this.#channel} within ${waitMs} ms`))
      }, waitMs)
      this.#onSubscribed = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  }

  listen(listener: Listener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  emit(event: StoreEvent): void {
    for (const listener of this.#listeners) listener(event)
  }

  close(): void {
    this.#closed = true
    clearInterval(this.#heartbeat)
    this.#listeners.clear()
    this.#sub?.disconnect()
  }

  #pick(): { host: string; port: number } {
    const nodes = this.#nodes()
    return nodes[this.#next++ % nodes.length]!
  }

  #connect(): void {
    if (this.#closed) return
    const sub = createSubscriber(this.#target, this.#policy, () => this.#pick())
    this.#sub = sub
    sub.on('error', () => {})
    sub.on('message', (_channel: string, message: string) => {
      const parsed = parseEvent(message)
      if (parsed && parsed.origin !== this.origin) this.emit(parsed.event)
    })
    sub.on('ready', () => void this.#subscribe(sub))
    sub.on('close', () => {
      if (this.#sub === sub) this.#subscribed = false
    })
    // a cluster subscriber gives up on its node after a few attempts: move on to the next node
    sub.on('end', () => {
      if (this.#closed || this.#sub !== sub) return
      setTimeout(() => this.#connect(), this.#policy.maxBackoffMs).unref()
    })
    sub.connect().catch(() => {})
  }

  #beat(): void {
    if (this.#heartbeat) return
    this.#heartbeat = setInterval(() => {
      const sub = this.#sub
      // one ping at a time: an unanswered one is the news (the connection has gone quiet)
      if (!sub || !this.#subscribed || this.#pinging) return
      this.#pinging = true
      sub
        .ping()
        .then(
          () => {
            if (this.#sub === sub && this.#subscribed) this.#lastAck = performance.now()
          },
          () => {},
        )
        .finally(() => {
          this.#pinging = false
        })
    }, HEARTBEAT_MS)
    this.#heartbeat.unref()
  }

  async #subscribe(sub: Redis): Promise<void> {
    try {
      await sub.subscribe(this.#channel)
    } catch {
      // reconnect and try again
      sub.disconnect(true)
      return
    }
    if (this.#closed || this.#sub !== sub) return
    this.#subscribed = true
    this.#lastAck = performance.now()
    this.#beat()
    if (this.#everSubscribed) this.emit({ type: 'reset' })
    this.#everSubscribed = true
    this.#onSubscribed?.()
    this.#onSubscribed = undefined
  }
}
