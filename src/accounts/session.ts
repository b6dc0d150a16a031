import { createHash, randomBytes } from 'node:crypto'
import { HEADER_BOUNDS, withinBound } from '../lib/header-bounds.ts'
import type { AccountStore, Session } from './store/types.ts'

export const SESSION_COOKIE = 'anvil_session'
// idle lifetime, renewed on use (sliding), and a hard cap from sign-in after which one signs in again
export const SESSION_IDLE_MS = 7 * 86_400_000
export const SESSION_ABSOLUTE_MS = 30 * 86_400_000
// renewal writes at most once a minute per session, not on every request
const RENEW_AFTER_MS = 60_000
// sessions one person keeps at once (browsers, devices): signing in again past this ends the oldest, so
// successful sign-ins, which no limiter counts, cannot make the store keep sessions without bound
export const MAX_SESSIONS_PER_PERSON = 20

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/

export function sessionIdOf(token: string): string {
  return createHash('sha256').update(token).digest('base64url')
}

// The cookie is read only by name and only in its exact token shape; anything else is no session.
// A Cookie header over its bound is no session here (console routes refuse it first: 431, in the lane).
export function readSessionToken(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader || !withinBound(cookieHeader, HEADER_BOUNDS.cookie)) return undefined
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=')
    if (eq === -1 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue
    const value = part.slice(eq + 1).trim()
    if (TOKEN_PATTERN.test(value)) return value
  }
  return undefined
}

export function sessionCookie(token: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${token}; Path=/console; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Strict`
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/console; Max-Age=0; HttpOnly; Secure; SameSite=Strict`
}

export interface ResumedSession {
  session: Session
  // seconds for the cookie's Max-Age when the session was renewed by this request
  renewedMaxAge: number | null
}

// Server-side sessions: the cookie carries a random token, the store keeps only its hash.
export class SessionManager {
  #accounts: AccountStore
  #clock: () => number

  constructor(accounts: AccountStore, clock: () => number) {
    this.#accounts = accounts
    this.#clock = clock
  }

  #expiry(createdMs: number, now: number): number {
    return Math.min(now + SESSION_IDLE_MS, createdMs + SESSION_ABSOLUTE_MS)
  }

  // A fresh id on every sign-in (no session fixation); the one the browser had, if any, is deleted.
  async start(
    userId: string,
    previousId?: string,
  ): Promise<{ token: string; session: Session; maxAge: number }> {
    if (previousId) await this.#accounts.deleteSession(previousId)
    const now = this.#clock()
    const token = randomBytes(32).toString('base64url')
    const iso = new Date(now).toISOString()
    const expires = this.#expiry(now, now)
    const session: Session = {
      id: sessionIdOf(token),
      user_id: userId,
      csrf_token: randomBytes(32).toString('base64url'),
      created_at: iso,
      expires_at: new Date(expires).toISOString(),
      last_seen: iso,
    }
    await this.#accounts.createSession(session, MAX_SESSIONS_PER_PERSON)
    return { token, session, maxAge: Math.floor((expires - now) / 1000) }
  }

  async resume(token: string): Promise<ResumedSession | undefined> {
    const now = this.#clock()
    const session = await this.#accounts.getSession(sessionIdOf(token), now)
    if (!session) return undefined
    if (now - Date.parse(session.last_seen) < RENEW_AFTER_MS) return { session, renewedMaxAge: null }
    const expires = this.#expiry(Date.parse(session.created_at), now)
    const patch = { expires_at: new Date(expires).toISOString(), last_seen: new Date(now).toISOString() }
    await this.#accounts.touchSession(session.id, patch)
    return { session: { ...session, ...patch }, renewedMaxAge: Math.floor((expires - now) / 1000) }
  }

  end(id: string): Promise<void> {
    return this.#accounts.deleteSession(id)
  }
}
