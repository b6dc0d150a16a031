import { afterAll, beforeAll, expect, it } from 'vitest'
import { generateKey, hashKey, keyPrefix } from '../../../src/keys/format.ts'
import { rotateApiKey } from '../../../src/keys/service.ts'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../../helpers/harness.ts'
import { commandsDuring } from '../../helpers/redis-monitor.ts'
import { describeRedis, type RedisServer, startRedis } from '../../helpers/redis-server.ts'
import { ConsoleClient } from '../../http/console/console-client.ts'

const KEYS = 40
const WORKSPACES = 24
const LIMIT = 5

const command = (args: string[]) => args[0]!.toLowerCase()
// the distinct records of one kind a request read (a key record: <p>:{ws:<id>}:key:<key id>)
function recordsRead(commands: string[][], pattern: RegExp): Set<string> {
  const reads = new Set(['hgetall', 'hget', 'hmget'])
  return new Set(commands.filter((a) => reads.has(command(a)) && pattern.test(a[1] ?? '')).map((a) => a[1]!))
}
const count = (commands: string[][], name: string) => commands.filter((a) => command(a) === name).length

// Issue 16: on Redis every list page comes from a sorted set plus a read of the page's own items. These
// tests count, with a real redis-server's MONITOR, what one page makes Redis read, in lists long enough
// that reading every item would show: a page reads at most its own items (and, for keys, the other end of
// a rotation), never a whole set of ids (SMEMBERS) or every membership (HVALS).
describeRedis('list pages on Redis read only their page', () => {
  let server: RedisServer
  let t: TestApp
  let person: ConsoleClient
  let workspaceId: string
  beforeAll(async () => {
    server = await startRedis()
    t = await startTestApp({ env: { REDIS_URL: server.url, CONSOLE_MAX_WORKSPACES: String(WORKSPACES + 1) } })
    person = new ConsoleClient(t.app)
    workspaceId = (await person.signUp('lists@example.com')).workspace.id
    for (let i = 1; i < WORKSPACES; i++) {
      const r = await person.call('POST', '/console/api/workspaces', { name: `w${i}` })
      expect(r.statusCode).toBe(200)
    }
    const project = await t.runtime.store.ensureProject(workspaceId, 'web')
    const env = await t.runtime.store.ensureEnvironment(project.id, 'production', 'live')
    for (let i = 0; i < KEYS; i++) {
      const secret = generateKey('live')
      await t.runtime.store.createKey({
        workspace_id: workspaceId,
        project_id: project.id,
        environment_id: env.id,
        mode: 'live',
        hash: hashKey(secret),
        prefix: keyPrefix(secret),
        name: `k${i}`,
        families: null,
        allowed_cidrs: null,
        expires_at: null,
        monthly_quota: null,
      })
    }
    // the newest keys include rotations: their rows name the key at the other end
    const [newest] = (await t.runtime.store.pageKeys(workspaceId, { limit: 1 }))!.data
    await rotateApiKey(t.runtime.store, newest!.id, 3600, Date.now())
  }, 60_000)
  afterAll(async () => {
    await t?.close()
    await server?.stop()
  })

  const keyRecord = () => new RegExp(`\\{ws:${workspaceId}\\}:key:`)

  it("the console's key list: a page reads its keys and their rotations' other ends, not every key", async () => {
    const url = `/console/api/workspaces/${workspaceId}/keys`
    let first: { data: { id: string; rotated_from: unknown; replaced_by: unknown }[]; has_more: boolean }
    const commands = await commandsDuring(server.url, async () => {
      const r = await person.call('GET', `${url}?limit=${LIMIT}`)
      expect(r.statusCode).toBe(200)
      first = r.json().data
    })
    expect(first!.data).toHaveLength(LIMIT)
    expect(first!.has_more).toBe(true)
    // the rotation shows at both ends: the replacement (newest) and the key it replaced (second)
    expect(first!.data[0]!.rotated_from).not.toBeNull()
    expect(first!.data[1]!.replaced_by).not.toBeNull()
    const read = recordsRead(commands, keyRecord())
    expect(read.size).toBeGreaterThanOrEqual(LIMIT)
    expect(read.size).toBeLessThanOrEqual(2 * LIMIT)
    expect(count(commands, 'smembers')).toBe(0)

    // the next page costs the same, wherever it starts
    const next = await commandsDuring(server.url, async () => {
      const r = await person.call('GET', `${url}?limit=${LIMIT}&starting_after=${first!.data.at(-1)!.id}`)
      expect(r.statusCode).toBe(200)
      expect(r.json().data.data).toHaveLength(LIMIT)
    })
    expect(recordsRead(next, keyRecord()).size).toBeLessThanOrEqual(2 * LIMIT)
    expect(count(next, 'smembers')).toBe(0)

    // the counting sees reads: the usage report, which names every key, reads them all
    const everything = await commandsDuring(server.url, () =>
      person.call('GET', `/console/api/workspaces/${workspaceId}/usage`),
    )
    expect(recordsRead(everything, keyRecord()).size).toBeGreaterThanOrEqual(KEYS)
  })

  it("the console's workspace list: a page reads its workspaces and memberships, not every one", async () => {
    let page: { data: { id: string }[]; has_more: boolean }
    const commands = await commandsDuring(server.url, async () => {
      const r = await person.call('GET', `/console/api/workspaces?limit=${LIMIT}`)
      expect(r.statusCode).toBe(200)
      page = r.json().data
    })
    expect(page!.data).toHaveLength(LIMIT)
    expect(page!.has_more).toBe(true)
    expect(recordsRead(commands, /\}:ws$/).size).toBe(LIMIT)
    expect(count(commands, 'hvals')).toBe(0)
    expect(count(commands, 'smembers')).toBe(0)
    // and every page together is every workspace, newest first, once
    const seen = [...page!.data.map((w) => w.id)]
    let after = seen.at(-1)
    for (;;) {
      const r = (
        await person.call('GET', `/console/api/workspaces?limit=${LIMIT}&starting_after=${after}`)
      ).json().data
      seen.push(...r.data.map((w: { id: string }) => w.id))
      if (!r.has_more) break
      after = seen.at(-1)
    }
    expect(seen).toHaveLength(WORKSPACES)
    expect(new Set(seen).size).toBe(WORKSPACES)
    expect(seen.at(-1)).toBe(workspaceId)
  })

  it('the admin lists: a page of keys or workspaces reads its own items only', async () => {
    const admin = (url: string) =>
      t.admin.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    const keys = await commandsDuring(server.url, async () => {
      const r = await admin(`/admin/keys?workspace_id=${workspaceId}&limit=${LIMIT}`)
      expect(r.json().data.data).toHaveLength(LIMIT)
    })
    expect(recordsRead(keys, keyRecord()).size).toBe(LIMIT)
    expect(count(keys, 'smembers')).toBe(0)
    const workspaces = await commandsDuring(server.url, async () => {
      const r = await admin(`/admin/workspaces?limit=${LIMIT}`)
      expect(r.json().data.data).toHaveLength(LIMIT)
    })
    expect(recordsRead(workspaces, /\}:ws$/).size).toBe(LIMIT)
    expect(count(workspaces, 'smembers')).toBe(0)
  })
})
