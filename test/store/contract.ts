import { afterEach, describe, expect, it } from 'vitest'
import { generateKey, hashKey, keyPrefix } from '../../src/keys/format.ts'
import { type EndpointCounts, emptyEndpointCounts } from '../../src/store/endpoint-usage.ts'
import {
  type ConsumeRequest,
  keptBytes,
  type NewKey,
  type Store,
  type StoreEvent,
} from '../../src/store/types.ts'

// One suite, every store: the embedded one and Redis (single node and cluster) must be
// indistinguishable through the Store interface, limits included.
export interface StoreUnderTest {
  // a fresh, empty store whose limiter and timestamps follow `clock`
  open(clock: () => number): Promise<Store>
}

const T0 = Date.UTC(2026, 10, 30, 23, 59, 0)

// an endpoint's counts: answers by outcome, and [bucket, answers] of its latency histogram
function counts(
  ok: number,
  client: number,
  server: number,
  buckets: [number, number][] = [],
): EndpointCounts {
  const c = emptyEndpointCounts()
  Object.assign(c, { ok, client_errors: client, server_errors: server })
  for (const [i, n] of buckets) c.latency[i] = n
  return c
}

export function storeContract(name: string, subject: StoreUnderTest): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store
    let now = T0
    afterEach(async () => {
      await store?.close()
    })

    async function open(): Promise<Store> {
      now = T0
      store = await subject.open(() => now)
      return store
    }

    async function newKey(s: Store, workspaceId: string, extra: Partial<NewKey> = {}) {
      const project = await s.ensureProject(workspaceId, 'default')
      const env = await s.ensureEnvironment(project.id, 'production', 'live')
      const raw = generateKey('live')
      const record = await s.createKey({
        workspace_id: workspaceId,
        project_id: project.id,
        environment_id: env.id,
        mode: 'live',
        hash: hashKey(raw),
        prefix: keyPrefix(raw),
        name: null,
        families: null,
        allowed_cidrs: null,
        expires_at: null,
        monthly_quota: null,
        ...extra,
      })
      return { raw, record }
    }

    const limits = (
      workspaceId: string,
      keyId: string,
      over: Partial<ConsumeRequest> = {},
    ): ConsumeRequest => ({
      workspaceId,
      keyId,
      keyRatePerSecond: 1000,
      workspaceRatePerSecond: 1000,
      monthlyQuota: 1_000_000,
      keyMonthlyQuota: null,
      ...over,
    })
    const burst = (s: Store, req: ConsumeRequest, n: number) =>
      Promise.all(Array.from({ length: n }, () => s.consume(req)))
    const admitted = (ds: { allowed: boolean }[]) => ds.filter((d) => d.allowed).length

    it('is ready, and creates, reads, patches and lists workspaces', async () => {
      const s = await open()
      expect(await s.ready()).toBe(true)
      const a = await s.createWorkspace({ name: 'acme', plan: 'pro' })
      expect(a).toMatchObject({
        name: 'acme',
        plan: 'pro',
        overrides: {},
        created_at: new Date(T0).toISOString(),
      })
      expect(a.id).toMatch(/^ws_[0-9A-Za-z]{20}$/)
      expect(await s.getWorkspace(a.id)).toEqual(a)
      expect(await s.getWorkspace('ws_missing')).toBeUndefined()
      expect(await s.updateWorkspace('ws_missing', { plan: 'free' })).toBeUndefined()
      await s.updateWorkspace(a.id, { overrides: { monthly_quota: 42, key_rate_per_second: 7 } })
      const b = await s.updateWorkspace(a.id, {
        plan: 'business',
        overrides: { monthly_quota: 9_007_199_254_740_991 },
      })
      // overrides merge field by field; numbers survive exactly
      expect(b).toEqual({
        ...a,
        plan: 'business',
        overrides: { monthly_quota: 9_007_199_254_740_991, key_rate_per_second: 7 },
      })
      expect(await s.getWorkspace(a.id)).toEqual(b)
      now += 1000
      const c = await s.createWorkspace({ name: 'other', plan: 'free' })
      expect((await s.listWorkspaces()).map((w) => w.id).sort()).toEqual([a.id, c.id].sort())
    })

    it('grants the first-start bootstrap to exactly one of many concurrent claims, once', async () => {
      const s = await open()
      const claims = await Promise.all(Array.from({ length: 8 }, () => s.claimBootstrap()))
      expect(claims.filter(Boolean)).toHaveLength(1)
      expect(await s.claimBootstrap()).toBe(false)
    })

    it('ensureProject / ensureEnvironment are get-or-create, also when raced', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'free' })
      const projects = await Promise.all(Array.from({ length: 8 }, () => s.ensureProject(ws.id, 'default')))
      expect(new Set(projects.map((p) => p.id)).size).toBe(1)
      expect(projects[0]).toMatchObject({ workspace_id: ws.id, name: 'default' })
      const other = await s.ensureProject(ws.id, 'mobile')
      expect((await s.listProjects(ws.id)).map((p) => p.name).sort()).toEqual(['default', 'mobile'])
      const p = projects[0]!
      const envs = await Promise.all(
        Array.from({ length: 8 }, () => s.ensureEnvironment(p.id, 'staging', 'test')),
      )
      expect(new Set(envs.map((e) => e.id)).size).toBe(1)
      expect(envs[0]).toMatchObject({ workspace_id: ws.id, project_id: p.id, name: 'staging', mode: 'test' })
      // an existing environment keeps its mode
      expect((await s.ensureEnvironment(p.id, 'staging', 'live')).mode).toBe('test')
      await s.ensureEnvironment(p.id, 'production', 'live')
      expect((await s.listEnvironments(p.id)).map((e) => e.name).sort()).toEqual(['production', 'staging'])
      expect(await s.listEnvironments(other.id)).toEqual([])
      await expect(s.ensureEnvironment('prj_missing', 'x', 'live')).rejects.toThrow()
    })

    it('creates keys, finds them by hash only, patches and lists them', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'pro' })
      const { raw, record } = await newKey(s, ws.id, {
        name: 'ci',
        families: ['hash', 'jwt'],
        allowed_cidrs: ['10.0.0.0/8'],
        expires_at: '2027-01-01T00:00:00.000Z',
        monthly_quota: 100,
      })
      expect(record).toMatchObject({
        workspace_id: ws.id,
        name: 'ci',
        families: ['hash', 'jwt'],
        allowed_cidrs: ['10.0.0.0/8'],
        monthly_quota: 100,
        revoked_at: null,
        rotated_to: null,
        created_at: new Date(T0).toISOString(),
      })
      expect(await s.getKey(record.id)).toEqual(record)
      expect(await s.lookupKey(hashKey(raw))).toEqual({ key: record, workspace: ws })
      expect(await s.lookupKey(hashKey(generateKey('live')))).toBeUndefined()
      expect(await s.getKey('key_missing')).toBeUndefined()
      expect(await s.updateKey('key_missing', { revoked_at: new Date(T0).toISOString() })).toBeUndefined()

      const revoked = await s.updateKey(record.id, {
        revoked_at: new Date(T0).toISOString(),
        rotated_to: 'key_x',
      })
      expect(revoked).toEqual({ ...record, revoked_at: new Date(T0).toISOString(), rotated_to: 'key_x' })
      expect((await s.lookupKey(hashKey(raw)))?.key).toEqual(revoked)
      const plain = await newKey(s, ws.id)
      expect(plain.record).toMatchObject({
        name: null,
        families: null,
        allowed_cidrs: null,
        monthly_quota: null,
      })
      expect((await s.listKeys(ws.id)).map((k) => k.id).sort()).toEqual([record.id, plain.record.id].sort())
      expect(await s.listKeys('ws_missing')).toEqual([])
    })

    it('announces key and workspace changes to subscribers before the change resolves', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'pro' })
      const { record } = await newKey(s, ws.id)
      const events: StoreEvent[] = []
      const stop = s.subscribe((e) => {
        if (e.type !== 'reset') events.push(e)
      })
      await s.updateKey(record.id, { revoked_at: new Date(T0).toISOString() })
      expect(events).toEqual([{ type: 'key', hash: record.hash }])
      await s.updateWorkspace(ws.id, { plan: 'business' })
      expect(events).toEqual([
        { type: 'key', hash: record.hash },
        { type: 'workspace', id: ws.id },
      ])
      // a store's own changes are announced once, not again when its broadcast comes back
      await new Promise((r) => setTimeout(r, 100))
      expect(events).toHaveLength(2)
      stop()
      await s.updateWorkspace(ws.id, { plan: 'pro' })
      expect(events).toHaveLength(2)
    })

    it('per-key cap: exactly the burst under concurrency, then continuous refill', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'free' })
      const { record } = await newKey(s, ws.id)
      const req = limits(ws.id, record.id, { keyRatePerSecond: 5, workspaceRatePerSecond: 10 })
      const first = await burst(s, req, 200)
      expect(admitted(first)).toBe(5)
      const refused = first.filter((d) => !d.allowed)
      expect(refused.every((d) => d.reason === 'key_rate' && d.retryAfter >= 1)).toBe(true)
      expect(refused[0]!.keySecond).toEqual({ limit: 5, remaining: 0, reset: 1, window: 1 })
      now += 200
      expect(admitted(await burst(s, req, 10))).toBe(1)
      now += 1000
      expect(admitted(await burst(s, req, 10))).toBe(5)
    })

    it('workspace cap across keys; a key refusal charges nothing', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'free' })
      const [a, b, c] = [await newKey(s, ws.id), await newKey(s, ws.id), await newKey(s, ws.id)]
      const caps = { keyRatePerSecond: 5, workspaceRatePerSecond: 10 }
      expect(admitted(await burst(s, limits(ws.id, a.record.id, caps), 200))).toBe(5)
      const rest = await Promise.all([
        burst(s, limits(ws.id, b.record.id, caps), 100),
        burst(s, limits(ws.id, c.record.id, caps), 100),
      ])
      expect(admitted(rest.flat())).toBe(5)
      const u = await s.usage(ws.id)
      expect(u.workspace).toEqual({ requests: 10, refused_rate: 390, refused_quota: 0 })
      expect(u.keys[a.record.id]).toEqual({ requests: 5, refused_rate: 195, refused_quota: 0 })
    })

    it('monthly quota is exact under concurrency; refusals are counted, not charged', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'free' })
      const { record } = await newKey(s, ws.id)
      const ds = await burst(s, limits(ws.id, record.id, { monthlyQuota: 50 }), 200)
      expect(admitted(ds)).toBe(50)
      const refused = ds.filter((d) => !d.allowed)
      expect(refused.every((d) => d.reason === 'quota')).toBe(true)
      // Retry-After and reset point at the next UTC month, 60 s after T0; November has 30 days
      expect(refused[0]!.retryAfter).toBe(60)
      expect(refused[0]!.month).toEqual({ limit: 50, remaining: 0, reset: 60, window: 30 * 86400 })
      const remaining = ds.filter((d) => d.allowed).map((d) => d.month.remaining)
      expect(remaining.sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i))
      expect(await s.usage(ws.id)).toEqual({
        month: '2026-11',
        workspace: { requests: 50, refused_rate: 0, refused_quota: 150 },
        test: { requests: 0, refused_rate: 0, refused_quota: 0 },
        keys: { [record.id]: { requests: 50, refused_rate: 0, refused_quota: 150 } },
        daily: { '2026-11-30': 50 },
      })
    })

    it('all-or-nothing: a refusal by quota leaves the rate buckets untouched, and the reverse', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'free' })
      const { record } = await newKey(s, ws.id)
      const full = limits(ws.id, record.id, {
        keyRatePerSecond: 3,
        workspaceRatePerSecond: 3,
        monthlyQuota: 0,
      })
      const refused = await burst(s, full, 20)
      expect(refused.every((d) => d.reason === 'quota')).toBe(true)
      // not a single token was taken by the 20 refusals: the buckets still hold their full burst
      expect(refused[19]!.keySecond.remaining).toBe(3)
      const open3 = { ...full, monthlyQuota: 100 }
      const rated = await burst(s, open3, 10)
      expect(admitted(rated)).toBe(3)
      expect(rated.filter((d) => !d.allowed).every((d) => d.reason === 'key_rate')).toBe(true)
      // the 7 rate refusals took no quota: a quota of 4 still has exactly one request left
      now += 1000
      const after = await s.consume({ ...open3, monthlyQuota: 4 })
      expect(after).toMatchObject({ allowed: true, month: { remaining: 0 } })
      expect((await s.usage(ws.id)).workspace).toEqual({ requests: 4, refused_rate: 7, refused_quota: 20 })
    })

    it('a key monthly quota is decided with the workspace quota and reported separately', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'pro' })
      const limited = await newKey(s, ws.id, { monthly_quota: 2 })
      const other = await newKey(s, ws.id)
      const ds = await burst(s, limits(ws.id, limited.record.id, { keyMonthlyQuota: 2 }), 10)
      expect(admitted(ds)).toBe(2)
      const no = ds.find((d) => !d.allowed)!
      expect(no).toMatchObject({ reason: 'key_quota', retryAfter: 60, keyMonth: { limit: 2, remaining: 0 } })
      const ok = await s.consume(limits(ws.id, other.record.id))
      expect(ok).toMatchObject({ allowed: true, keyMonth: null, month: { remaining: 1_000_000 - 3 } })
    })

    it('quotas and usage roll over with the UTC calendar month', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'free' })
      const { record } = await newKey(s, ws.id)
      const req = limits(ws.id, record.id, { monthlyQuota: 3 })
      expect(admitted(await burst(s, req, 5))).toBe(3)
      now = Date.UTC(2026, 11, 1, 0, 0, 0)
      const december = await burst(s, req, 5)
      expect(admitted(december)).toBe(3)
      // December has 31 days; the quota resets 31 days later
      expect(december[0]!.month).toMatchObject({ reset: 31 * 86400, window: 31 * 86400 })
      expect((await s.usage(ws.id)).month).toBe('2026-12')
      expect((await s.usage(ws.id)).daily).toEqual({ '2026-12-01': 3 })
      expect((await s.usage(ws.id, '2026-11')).workspace).toEqual({
        requests: 3,
        refused_rate: 0,
        refused_quota: 2,
      })
      // year boundary and a leap February
      now = Date.UTC(2028, 1, 29, 12, 0, 0)
      const feb = await s.consume(req)
      expect(feb.month).toMatchObject({ window: 29 * 86400, reset: 12 * 3600 })
      expect((await s.usage(ws.id)).daily).toEqual({ '2028-02-29': 1 })
    })

    it('refund gives back exactly what one admitted request was charged, in the month it was charged', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'free' })
      const { record } = await newKey(s, ws.id)
      const other = await newKey(s, ws.id)
      const req = limits(ws.id, record.id, { monthlyQuota: 3 })
      const ds = await burst(s, req, 4)
      const charged = ds.filter((d) => d.allowed)
      expect(charged).toHaveLength(3)
      expect(charged[0]!.charge).toEqual({
        workspaceId: ws.id,
        keyId: record.id,
        month: '2026-11',
        day: '30',
      })
      expect(ds.find((d) => !d.allowed)!.charge).toBeNull()
      await s.consume(limits(ws.id, other.record.id))
      // the clock moves into December before the refund lands: November is given back, not December
      now = Date.UTC(2026, 11, 1, 0, 0, 30)
      await s.refund(charged[0]!.charge!)
      expect(await s.usage(ws.id, '2026-11')).toEqual({
        month: '2026-11',
        workspace: { requests: 3, refused_rate: 0, refused_quota: 1 },
        test: { requests: 0, refused_rate: 0, refused_quota: 0 },
        keys: {
          [record.id]: { requests: 2, refused_rate: 0, refused_quota: 1 },
          [other.record.id]: { requests: 1, refused_rate: 0, refused_quota: 0 },
        },
        daily: { '2026-11-30': 3 },
      })
      expect((await s.usage(ws.id)).workspace.requests).toBe(0)
      // the place given back is usable again under the quota
      now = Date.UTC(2026, 10, 30, 23, 59, 30)
      const again = await s.consume({ ...req, monthlyQuota: 4 })
      expect(again.allowed).toBe(true)
      expect(again.month.remaining).toBe(0)
      // never below zero, and a refund for a month with no usage changes nothing
      const lone = await newKey(s, ws.id)
      const one = await s.consume(limits(ws.id, lone.record.id))
      await s.refund(one.charge!)
      await s.refund(one.charge!)
      expect((await s.usage(ws.id, '2026-11')).keys[lone.record.id]).toEqual({
        requests: 0,
        refused_rate: 0,
        refused_quota: 0,
      })
      await s.refund({ workspaceId: ws.id, keyId: record.id, month: '2026-01', day: '05' })
      expect(await s.usage(ws.id, '2026-01')).toMatchObject({ workspace: { requests: 0 }, daily: {} })
    })

    it('usage of an idle workspace is all zeros', async () => {
      const s = await open()
      expect(await s.usage('ws_idle', '2026-01')).toEqual({
        month: '2026-01',
        workspace: { requests: 0, refused_rate: 0, refused_quota: 0 },
        test: { requests: 0, refused_rate: 0, refused_quota: 0 },
        keys: {},
        daily: {},
      })
    })

    // Issue 43: test-mode keys drew on the live quota and rate. Test mode is limited apart: its own
    // workspace-wide bucket and monthly count, each at the plan's figure (docs/api.md, "Test mode").
    it('test mode is limited apart from live traffic: its own workspace rate and monthly count, refunds included', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'free' })
      const live = await newKey(s, ws.id)
      const test = await newKey(s, ws.id, { mode: 'test' })
      const caps = { keyRatePerSecond: 100, workspaceRatePerSecond: 4, monthlyQuota: 6 }
      const liveReq = limits(ws.id, live.record.id, caps)
      const testReq = limits(ws.id, test.record.id, { ...caps, mode: 'test' })
      // the live bucket is full: test traffic still has its own
      expect(admitted(await burst(s, liveReq, 10))).toBe(4)
      const tests = await burst(s, testReq, 10)
      expect(admitted(tests)).toBe(4)
      expect(tests.find((d) => !d.allowed)!.reason).toBe('workspace_rate')
      // the monthly counts are apart too: 6 each, never 6 between them
      now += 2000
      expect(admitted(await burst(s, liveReq, 4))).toBe(2)
      expect(admitted(await burst(s, testReq, 4))).toBe(2)
      now += 2000
      const overLive = await s.consume(liveReq)
      const overTest = await s.consume(testReq)
      expect([overLive.reason, overTest.reason]).toEqual(['quota', 'quota'])
      expect(overTest.month).toMatchObject({ limit: 6, remaining: 0 })
      const usage = await s.usage(ws.id)
      expect(usage.workspace).toEqual({ requests: 6, refused_rate: 6, refused_quota: 3 })
      expect(usage.test).toEqual({ requests: 6, refused_rate: 6, refused_quota: 3 })
      expect(usage.keys[test.record.id]).toEqual({ requests: 6, refused_rate: 6, refused_quota: 3 })
      expect(usage.daily).toEqual({ '2026-11-30': 6 })
      // a test-mode charge is refunded to test mode's count
      const charge = tests.find((d) => d.allowed)!.charge!
      expect(charge).toMatchObject({ workspaceId: ws.id, keyId: test.record.id, mode: 'test' })
      await s.refund(charge)
      const after = await s.usage(ws.id)
      expect([after.workspace.requests, after.test.requests]).toEqual([6, 5])
      expect(after.keys[test.record.id]!.requests).toBe(5)
    })

    it('pages workspaces and keys newest first, with has_more and a cursor; an unknown cursor is undefined', async () => {
      const s = await open()
      const made: string[] = []
      for (let i = 0; i < 7; i++) {
        // two per millisecond: ties in creation time are ordered by id, the same on every store
        if (i % 2 === 0) now += 1
        made.push((await s.createWorkspace({ name: `w${i}`, plan: 'free' })).id)
      }
      const expected = [...(await s.listWorkspaces())]
        .sort((a, b) =>
          a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
        )
        .map((w) => w.id)
      expect(new Set(expected)).toEqual(new Set(made))
      const seen: string[] = []
      let after: string | undefined
      for (;;) {
        const page = await s.pageWorkspaces({ limit: 3, startingAfter: after })
        expect(page).toBeDefined()
        seen.push(...page!.data.map((w) => w.id))
        if (!page!.has_more) break
        expect(page!.data).toHaveLength(3)
        after = page!.data.at(-1)!.id
      }
      expect(seen).toEqual(expected)
      expect((await s.pageWorkspaces({ limit: 100 }))!.has_more).toBe(false)
      expect(await s.pageWorkspaces({ limit: 3, startingAfter: 'ws_nope' })).toBeUndefined()

      const ws = made[0]!
      const keys: string[] = []
      for (let i = 0; i < 5; i++) {
        now += 1
        keys.push((await newKey(s, ws)).record.id)
      }
      const first = await s.pageKeys(ws, { limit: 2 })
      expect(first!.data.map((k) => k.id)).toEqual([keys[4], keys[3]])
      expect(first!.has_more).toBe(true)
      const rest = await s.pageKeys(ws, { limit: 10, startingAfter: keys[3] })
      expect(rest!.data.map((k) => k.id)).toEqual([keys[2], keys[1], keys[0]])
      expect(rest!.has_more).toBe(false)
      expect(rest!.data[0]).toEqual(await s.getKey(keys[2]!))
      // another workspace's key is not a cursor of this list
      const other = await newKey(s, made[1]!)
      expect(await s.pageKeys(ws, { limit: 2, startingAfter: other.record.id })).toBeUndefined()
      expect(await s.pageKeys('ws_empty', { limit: 2 })).toEqual({ data: [], has_more: false })
    })

    it("reads a page's neighbours by id: keys of the workspace, and which key a rotation replaced", async () => {
      const s = await open()
      const ws = (await s.createWorkspace({ name: 'w', plan: 'pro' })).id
      const other = (await s.createWorkspace({ name: 'o', plan: 'pro' })).id
      const [a, b, c] = [await newKey(s, ws), await newKey(s, ws), await newKey(s, ws)]
      const foreign = await newKey(s, other)
      const found = await s.getKeys(ws, [c.record.id, a.record.id, foreign.record.id, 'key_nope'])
      expect(found).toEqual([c.record, a.record])
      expect(await s.getKeys(ws, [])).toEqual([])
      // b replaced a (a rotation: the old key points at its replacement); c replaced nothing
      await s.updateKey(a.record.id, { rotated_to: b.record.id })
      const links = await s.rotatedFrom(ws, [a.record.id, b.record.id, c.record.id])
      expect([...links]).toEqual([[b.record.id, a.record.id]])
      expect(await s.rotatedFrom(other, [b.record.id])).toEqual(new Map())
    })

    it('renames a workspace, a project and an environment; a name taken in the same scope is refused', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'free' })
      const renamed = await s.updateWorkspace(ws.id, { name: 'Renamed' })
      expect(renamed).toEqual({ ...ws, name: 'Renamed' })
      expect(await s.getWorkspace(ws.id)).toEqual(renamed)
      const a = await s.ensureProject(ws.id, 'a')
      const b = await s.ensureProject(ws.id, 'b')
      expect(await s.renameProject(ws.id, a.id, 'b')).toBe('name_taken')
      expect(await s.renameProject(ws.id, a.id, 'a')).toEqual(a)
      const aa = await s.renameProject(ws.id, a.id, 'alpha')
      expect(aa).toEqual({ ...a, name: 'alpha' })
      expect((await s.listProjects(ws.id)).map((p) => p.name).sort()).toEqual(['alpha', 'b'])
      // the old name is free again, and get-or-create by the new name finds the renamed project
      expect((await s.ensureProject(ws.id, 'alpha')).id).toBe(a.id)
      expect((await s.ensureProject(ws.id, 'a')).id).not.toBe(a.id)
      const other = await s.createWorkspace({ name: 'o', plan: 'free' })
      expect(await s.renameProject(other.id, b.id, 'x')).toBeUndefined()
      expect(await s.renameProject(ws.id, 'prj_missing', 'x')).toBeUndefined()

      const prod = await s.ensureEnvironment(a.id, 'production', 'live')
      await s.ensureEnvironment(a.id, 'staging', 'test')
      const elsewhere = await s.ensureEnvironment(b.id, 'prod', 'live')
      expect(await s.renameEnvironment(a.id, prod.id, 'staging')).toBe('name_taken')
      // the same name in another project is not taken
      expect(await s.renameEnvironment(a.id, prod.id, 'prod')).toEqual({ ...prod, name: 'prod' })
      expect((await s.listEnvironments(a.id)).map((e) => e.name).sort()).toEqual(['prod', 'staging'])
      expect((await s.ensureEnvironment(a.id, 'prod', 'test')).id).toBe(prod.id)
      expect(await s.renameEnvironment(a.id, elsewhere.id, 'x')).toBeUndefined()
      expect(await s.renameEnvironment('prj_missing', prod.id, 'x')).toBeUndefined()
    })

    it('deletes an environment or a project with its keys, refused while one of them is live', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'free' })
      const { raw, record } = await newKey(s, ws.id)
      const project = await s.ensureProject(ws.id, 'default')
      const env = await s.ensureEnvironment(project.id, 'production', 'live')
      const staging = await s.ensureEnvironment(project.id, 'staging', 'test')
      const kept = await newKey(s, ws.id, { environment_id: staging.id, mode: 'test' })
      // an expired key is not live, a revoked one neither; the live one refuses, and nothing changes
      const expired = await newKey(s, ws.id, { expires_at: new Date(T0 - 1).toISOString() })
      const refused = await s.deleteEnvironment(project.id, env.id)
      expect(refused).toEqual({ deleted: false, live: [record] })
      expect(await s.listEnvironments(project.id)).toHaveLength(2)
      await s.updateKey(record.id, { revoked_at: new Date(T0).toISOString() })
      const deleted = await s.deleteEnvironment(project.id, env.id)
      expect(deleted).toMatchObject({ deleted: true })
      expect((deleted as { keys: string[] }).keys.sort()).toEqual([record.id, expired.record.id].sort())
      expect((await s.listEnvironments(project.id)).map((e) => e.id)).toEqual([staging.id])
      for (const gone of [record, expired.record]) expect(await s.getKey(gone.id)).toBeUndefined()
      expect(await s.lookupKey(hashKey(raw))).toBeUndefined()
      expect((await s.listKeys(ws.id)).map((k) => k.id)).toEqual([kept.record.id])
      expect((await s.pageKeys(ws.id, { limit: 10 }))!.data.map((k) => k.id)).toEqual([kept.record.id])
      expect(await s.deleteEnvironment(project.id, env.id)).toBeUndefined()
      expect(await s.deleteEnvironment('prj_missing', staging.id)).toBeUndefined()

      // a project goes with its environments, refused while a key in any of them is live
      expect(await s.deleteProject(ws.id, project.id)).toEqual({ deleted: false, live: [kept.record] })
      const other = await s.createWorkspace({ name: 'o', plan: 'free' })
      expect(await s.deleteProject(other.id, project.id)).toBeUndefined()
      await s.updateKey(kept.record.id, { revoked_at: new Date(T0).toISOString() })
      expect(await s.deleteProject(ws.id, project.id)).toEqual({ deleted: true, keys: [kept.record.id] })
      expect(await s.listProjects(ws.id)).toEqual([])
      expect(await s.listEnvironments(project.id)).toEqual([])
      expect(await s.listKeys(ws.id)).toEqual([])
      // the name can be used again: a new project, a new id
      expect((await s.ensureProject(ws.id, 'default')).id).not.toBe(project.id)
    })

    it('caps stay exact across deletes: a deleted project or key is not counted, a new one is', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'free' })
      const a = await s.ensureProject(ws.id, 'a')
      await s.ensureEnvironment(a.id, 'one', 'live', 3)
      await s.ensureEnvironment(a.id, 'two', 'live', 3)
      expect(await s.deleteProject(ws.id, a.id)).toMatchObject({ deleted: true })
      // the same number of projects, not the same projects: c's environments count, a's do not
      const b = await s.ensureProject(ws.id, 'b')
      const c = await s.ensureProject(ws.id, 'c')
      await s.ensureEnvironment(b.id, 'one', 'live', 3)
      await s.ensureEnvironment(c.id, 'one', 'live', 3)
      await s.ensureEnvironment(c.id, 'two', 'live', 3)
      await expect(s.ensureEnvironment(b.id, 'two', 'live', 3)).rejects.toMatchObject({
        details: { limit: 'max_environments', max: 3 },
      })
      expect(await s.deleteProject(ws.id, b.id)).toMatchObject({ deleted: true })
      // a revoked key deleted with its environment: the two new keys fill a cap of 2, a third is refused
      const gone = await newKey(s, ws.id)
      await s.updateKey(gone.record.id, { revoked_at: new Date(T0).toISOString() })
      const project = await s.ensureProject(ws.id, 'default')
      const env = await s.ensureEnvironment(project.id, 'production', 'live')
      expect(await s.deleteEnvironment(project.id, env.id)).toMatchObject({ deleted: true })
      const make = async () => {
        const p = await s.ensureProject(ws.id, 'default')
        const e = await s.ensureEnvironment(p.id, 'production', 'live')
        const k = generateKey('live')
        return s.createKey(
          {
            workspace_id: ws.id,
            project_id: p.id,
            environment_id: e.id,
            mode: 'live',
            hash: hashKey(k),
            prefix: keyPrefix(k),
            name: null,
            families: null,
            allowed_cidrs: null,
            expires_at: null,
            monthly_quota: null,
          },
          2,
        )
      }
      await make()
      await make()
      await expect(make()).rejects.toMatchObject({ details: { limit: 'max_keys', max: 2 } })
    })

    it('deletes a workspace with everything it holds, refused while a key is live; subscribers hear of it', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'free' })
      const stay = await s.createWorkspace({ name: 'stay', plan: 'free' })
      const { raw, record } = await newKey(s, ws.id)
      const stayKey = await newKey(s, stay.id)
      await s.consume(limits(ws.id, record.id))
      await s.addEndpointUsage('2026-11', new Map([[ws.id, new Map([['POST /v1/x', counts(1, 0, 0)]])]]))
      expect(await s.deleteWorkspace(ws.id)).toEqual({ deleted: false, live: [record] })
      expect(await s.getWorkspace(ws.id)).toEqual(ws)
      await s.updateKey(record.id, { revoked_at: new Date(T0).toISOString() })
      const events: StoreEvent[] = []
      const stop = s.subscribe((e) => {
        if (e.type !== 'reset') events.push(e)
      })
      expect(await s.deleteWorkspace(ws.id)).toEqual({ deleted: true, keys: [record.id] })
      expect(events).toContainEqual({ type: 'workspace', id: ws.id })
      stop()
      expect(await s.getWorkspace(ws.id)).toBeUndefined()
      expect((await s.listWorkspaces()).map((w) => w.id)).toEqual([stay.id])
      expect((await s.pageWorkspaces({ limit: 10 }))!.data.map((w) => w.id)).toEqual([stay.id])
      expect(await s.listProjects(ws.id)).toEqual([])
      expect(await s.getKey(record.id)).toBeUndefined()
      expect(await s.lookupKey(hashKey(raw))).toBeUndefined()
      expect((await s.usage(ws.id, '2026-11')).workspace.requests).toBe(0)
      expect(await s.endpointUsage(ws.id, '2026-11')).toEqual({})
      expect(await s.deleteWorkspace(ws.id)).toBeUndefined()
      // a flush that arrives after the delete does not bring the workspace's counts back
      await s.addEndpointUsage('2026-11', new Map([[ws.id, new Map([['POST /v1/x', counts(1, 0, 0)]])]]))
      expect(await s.endpointUsage(ws.id, '2026-11')).toEqual({})
      // the other workspace is untouched
      expect((await s.lookupKey(stayKey.record.hash))?.key.id).toBe(stayKey.record.id)
    })

    it('endpoint usage: batches add up per workspace, endpoint and month', async () => {
      const s = await open()
      const ws = await s.createWorkspace({ name: 'w', plan: 'free' })
      const other = await s.createWorkspace({ name: 'o', plan: 'free' })
      expect(await s.endpointUsage(ws.id, '2026-11')).toEqual({})
      const batch = (n: number) =>
        new Map([
          [
            ws.id,
            new Map([
              [
                'POST /v1/hash/:algorithm',
                counts(n, 2, 1, [
                  [0, n],
                  [11, 3],
                ]),
              ],
              ['GET /v1/jobs/:id', counts(1, 0, 0, [[3, 1]])],
            ]),
          ],
          [other.id, new Map([['POST /v1/hash/:algorithm', counts(7, 0, 0, [[2, 7]])]])],
        ])
      await s.addEndpointUsage('2026-11', batch(5))
      await s.addEndpointUsage('2026-11', batch(10))
      await s.addEndpointUsage('2026-12', batch(1))
      expect(await s.endpointUsage(ws.id, '2026-11')).toEqual({
        'POST /v1/hash/:algorithm': counts(15, 4, 2, [
          [0, 15],
          [11, 6],
        ]),
        'GET /v1/jobs/:id': counts(2, 0, 0, [[3, 2]]),
      })
      expect((await s.endpointUsage(ws.id, '2026-12'))['POST /v1/hash/:algorithm']).toEqual(
        counts(1, 2, 1, [
          [0, 1],
          [11, 3],
        ]),
      )
      expect(await s.endpointUsage(other.id, '2026-11')).toEqual({
        'POST /v1/hash/:algorithm': counts(14, 0, 0, [[2, 14]]),
      })
    })

    it('idempotency records: the first begin takes the key, later ones see it; finish keeps, release frees', async () => {
      const s = await open()
      const rec1 = { scope: 'scope-a', id: 'rec-1' }
      expect(await s.idempotencyBegin(rec1, 'fp-a', 60_000)).toBeUndefined()
      expect(await s.idempotencyBegin(rec1, 'fp-b', 60_000)).toEqual({
        fingerprint: 'fp-a',
        state: 'running',
      })
      await s.idempotencyFinish(rec1, { fingerprint: 'fp-a', state: 'done', response: 'sealed' }, 60, 1e6)
      expect(await s.idempotencyBegin(rec1, 'fp-a', 60_000)).toEqual({
        fingerprint: 'fp-a',
        state: 'done',
        response: 'sealed',
      })
      // the same id in another scope is another record
      expect(await s.idempotencyBegin({ scope: 'scope-b', id: 'rec-1' }, 'fp-x', 60_000)).toBeUndefined()
      await s.idempotencyRelease(rec1)
      expect(await s.idempotencyBegin(rec1, 'fp-c', 60_000)).toBeUndefined()
      // concurrent first requests: exactly one takes the key
      const racing = await Promise.all(
        Array.from({ length: 8 }, () => s.idempotencyBegin({ scope: 'scope-a', id: 'rec-2' }, 'fp', 60_000)),
      )
      expect(racing.filter((r) => r === undefined)).toHaveLength(1)
    })

    it('idempotency records: a scope at exactly its byte bound keeps everything; one byte less drops the oldest', async () => {
      const s = await open()
      const record = (i: number) => ({
        fingerprint: `fp${i}`,
        state: 'done' as const,
        response: 'x'.repeat(995),
      })
      const weight = keptBytes({ scope: 'any', id: 'r0' }, record(0))
      expect(weight).toBe(1_000)
      for (const [scope, max, kept] of [
        ['exact', 3 * weight, [true, true, true]],
        ['short', 3 * weight - 1, [false, true, true]],
      ] as const) {
        for (let i = 0; i < 3; i++) {
          const ref = { scope, id: `r${i}` }
          expect(await s.idempotencyBegin(ref, `fp${i}`, 60_000)).toBeUndefined()
          await s.idempotencyFinish(ref, record(i), 60, max)
        }
        const found = await Promise.all(
          [0, 1, 2].map(
            async (i) => (await s.idempotencyBegin({ scope, id: `r${i}` }, `fp${i}`, 1))?.state === 'done',
          ),
        )
        expect(found, scope).toEqual(kept)
      }
    })

    it('idempotency records: a scope keeps at most its byte bound, oldest dropped first, other scopes untouched', async () => {
      const s = await open()
      const answer = 'x'.repeat(1_000)
      const keep = async (scope: string, i: number) => {
        const ref = { scope, id: `r${i}` }
        expect(await s.idempotencyBegin(ref, `fp${i}`, 60_000)).toBeUndefined()
        await s.idempotencyFinish(ref, { fingerprint: `fp${i}`, state: 'done', response: answer }, 60, 5_500)
      }
      for (let i = 0; i < 3; i++) await keep('other', i)
      // ~1,010 bytes each: five fit in 5,500, the sixth pushes the oldest out, and so on
      for (let i = 0; i < 8; i++) await keep('busy', i)
      const kept = async (scope: string, i: number) =>
        (await s.idempotencyBegin({ scope, id: `r${i}` }, `fp${i}`, 1))?.state === 'done'
      const busy = await Promise.all(Array.from({ length: 8 }, (_, i) => kept('busy', i)))
      expect(busy).toEqual([false, false, false, true, true, true, true, true])
      expect(await Promise.all([0, 1, 2].map((i) => kept('other', i)))).toEqual([true, true, true])
      // one answer over the whole bound is kept alone (the bound holds what the caller allows per answer)
      const big = { scope: 'alone', id: 'big' }
      await s.idempotencyBegin(big, 'fp', 60_000)
      await s.idempotencyFinish(
        big,
        { fingerprint: 'fp', state: 'done', response: 'y'.repeat(9_000) },
        60,
        5_500,
      )
      expect((await s.idempotencyBegin(big, 'fp', 1))?.state).toBe('done')
    })
  })
}
