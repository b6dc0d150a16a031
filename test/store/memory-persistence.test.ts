import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { hashKey } from '../../src/keys/format.ts'
import { createApiKey, revokeApiKey } from '../../src/keys/service.ts'
import { emptyEndpointCounts } from '../../src/store/endpoint-usage.ts'
import { MemoryStore } from '../../src/store/memory/memory-store.ts'

describe('embedded store persistence', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'anvil-store-'))
  })
  afterEach(() => rm(dir, { recursive: true, force: true }))

  it('reloads workspaces, keys (hashes only), revocations and usage after a restart', async () => {
    const a = await MemoryStore.open({ dataDir: dir })
    const ws = await a.createWorkspace({ name: 'acme', plan: 'pro' })
    await a.updateWorkspace(ws.id, { overrides: { monthly_quota: 42 } })
    const live = await createApiKey(a, { workspace_id: ws.id, name: 'live' })
    const gone = await createApiKey(a, { workspace_id: ws.id, name: 'gone' })
    if (!live.ok || !gone.ok) throw new Error('create failed')
    await revokeApiKey(a, gone.record.id, Date.now())
    const limits = {
      keyRatePerSecond: 10,
      workspaceRatePerSecond: 10,
      monthlyQuota: 42,
      keyMonthlyQuota: null,
    }
    await a.consume({ workspaceId: ws.id, keyId: live.record.id, ...limits })
    // a test-mode key's counts are kept apart, and persist as such
    const test = await createApiKey(a, { workspace_id: ws.id, environment: 'staging', mode: 'test' })
    if (!test.ok) throw new Error('create failed')
    for (let i = 0; i < 2; i++)
      await a.consume({ workspaceId: ws.id, keyId: test.record.id, mode: 'test', ...limits })
    await a.close()

    const file = await readFile(join(dir, 'store.json'), 'utf8')
    expect(file).not.toContain(live.key)
    expect(file).toContain(hashKey(live.key))
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([])

    const b = await MemoryStore.open({ dataDir: dir })
    const found = await b.lookupKey(hashKey(live.key))
    expect(found?.workspace).toMatchObject({ id: ws.id, plan: 'pro', overrides: { monthly_quota: 42 } })
    expect((await b.lookupKey(hashKey(gone.key)))?.key.revoked_at).toEqual(expect.any(String))
    const usage = await b.usage(ws.id)
    expect([usage.workspace.requests, usage.test.requests, usage.keys[test.record.id]?.requests]).toEqual([
      1, 2, 2,
    ])
    expect(await b.listProjects(ws.id)).toHaveLength(1)
    await b.close()
  })

  // The log lines of renames, deletes and endpoint counts, replayed on a copy of the files taken while the
  // store is open (as after a crash: no snapshot at close), then the snapshot written at close.
  it('renames, deletes and endpoint counts survive a restart, from the log and from the snapshot', async () => {
    const a = await MemoryStore.open({ dataDir: dir })
    const ws = await a.createWorkspace({ name: 'acme', plan: 'pro' })
    const doomed = await a.createWorkspace({ name: 'doomed', plan: 'free' })
    const key = await createApiKey(a, { workspace_id: ws.id, project: 'app', environment: 'old' })
    const kept = await createApiKey(a, { workspace_id: ws.id, project: 'app', environment: 'production' })
    if (!key.ok || !kept.ok) throw new Error('create failed')
    await a.compact()
    await a.updateWorkspace(ws.id, { name: 'Acme Inc' })
    const [project] = await a.listProjects(ws.id)
    await a.renameProject(ws.id, project!.id, 'web')
    const prod = (await a.listEnvironments(project!.id)).find((e) => e.name === 'production')!
    await a.renameEnvironment(project!.id, prod.id, 'live')
    const counts = emptyEndpointCounts()
    counts.ok = 3
    counts.latency[1] = 3
    await a.addEndpointUsage('2026-05', new Map([[ws.id, new Map([['POST /v1/x', counts]])]]))
    await revokeApiKey(a, key.record.id, Date.now())
    const old = (await a.listEnvironments(project!.id)).find((e) => e.name === 'old')!
    expect(await a.deleteEnvironment(project!.id, old.id)).toMatchObject({ deleted: true })
    expect(await a.deleteWorkspace(doomed.id)).toMatchObject({ deleted: true })

    const crashed = await mkdtemp(join(tmpdir(), 'anvil-store-'))
    for (const f of await readdir(dir))
      if (f.startsWith('store.')) await copyFile(join(dir, f), join(crashed, f))
    await a.close()
    try {
      for (const at of [crashed, dir]) {
        const b = await MemoryStore.open({ dataDir: at })
        expect((await b.getWorkspace(ws.id))?.name).toBe('Acme Inc')
        expect(await b.getWorkspace(doomed.id)).toBeUndefined()
        expect((await b.listProjects(ws.id)).map((p) => p.name)).toEqual(['web'])
        expect((await b.listEnvironments(project!.id)).map((e) => e.name)).toEqual(['live'])
        expect(await b.getKey(key.record.id)).toBeUndefined()
        expect(await b.lookupKey(hashKey(key.key))).toBeUndefined()
        expect((await b.lookupKey(hashKey(kept.key)))?.key.id).toBe(kept.record.id)
        expect((await b.endpointUsage(ws.id, '2026-05'))['POST /v1/x']).toEqual(counts)
        await b.close()
      }
    } finally {
      await rm(crashed, { recursive: true, force: true })
    }
  })

  it('concurrent changes all reach the file (writes are serialised and coalesced)', async () => {
    const a = await MemoryStore.open({ dataDir: dir })
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => a.createWorkspace({ name: `w${i}`, plan: 'free' })),
    )
    await a.close()
    const b = await MemoryStore.open({ dataDir: dir })
    expect(await b.listWorkspaces()).toHaveLength(50)
    await b.close()
  })
})
