import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe } from 'vitest'

const run = promisify(execFile)

export interface RedisServer {
  host: string
  port: number
  url: string
  dir: string
  child: ChildProcess
  // SIGKILL: the abrupt death an outage test wants (no shutdown save, sockets reset)
  kill(): Promise<void>
  // start again on the same port and directory (AOF, when enabled, brings the data back)
  restart(): Promise<void>
  stop(): Promise<void>
}

export interface RedisCluster {
  nodes: { host: string; port: number }[]
  // REDIS_CLUSTER_NODES syntax
  spec: string
  stop(): Promise<void>
}

export interface RedisServerOptions {
  // append-only file with fsync on every write, so data survives a SIGKILL (outage tests)
  durable?: boolean
  cluster?: boolean
  // more redis-server arguments (a configuration under test: docker-compose.yml's)
  args?: string[]
}

// Why the Redis-backed tests cannot run here, or null when they can. Under CI (CI=true) a missing
// redis-server is a broken machine, not a reason to skip: that throws, so the run fails loudly.
export function redisUnavailable(): string | null {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' })
  const cli = spawnSync('redis-cli', ['--version'], { encoding: 'utf8' })
  if (probe.status === 0 && cli.status === 0) return null
  const reason = 'redis-server/redis-cli not found on PATH (apt-get install redis-server)'
  if (process.env.CI === 'true') throw new Error(`CI=true but ${reason}`)
  return reason
}

// describe() when a real redis-server can be started, otherwise a skipped block that says why.
export function describeRedis(name: string, body: () => void): void {
  const reason = redisUnavailable()
  if (reason) {
    process.stderr.write(`skipping "${name}": ${reason}\n`)
    describe.skip(name, body)
    return
  }
  describe(name, body)
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', () => resolve(false))
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)))
  })
}

// A random loopback port whose cluster bus port (port + 10000) is free as well.
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000)
    if ((await portIsFree(port)) && (await portIsFree(port + 10_000))) return port
  }
  throw new Error('no free loopback port found')
}

// redis-server does not die with its parent: whatever a failed test leaves running is killed on exit
const live = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL')
})

function launch(port: number, dir: string, options: RedisServerOptions): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '']
  args.push(
    ...(options.durable ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
  )
  if (options.args) args.push(...options.args)
  if (options.cluster) {
    args.push('--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`)
    args.push('--cluster-node-timeout', '2000')
  }
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] })
  live.add(child)
  child.once('exit', () => live.delete(child))
  let out = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`redis-server on ${port} did not start:\n${out}`))
    }, 10_000)
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer)
        child.stdout!.off('data', onData)
        child.stdout!.resume()
        resolve(child)
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (c: Buffer) => {
      out += c.toString()
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`redis-server on ${port} exited with ${code}:\n${out}`))
    })
  })
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

async function terminate(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const done = exited(child)
  child.kill(signal)
  await done
}

// A throw-away redis-server on a random loopback port, in its own temporary directory.
export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'anvil-redis-'))
  const port = await freePort()
  let child = await launch(port, dir, options)
  return {
    host: '127.0.0.1',
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    get child() {
      return child
    },
    kill: () => terminate(child, 'SIGKILL'),
    async restart() {
      await exited(child)
      child = await launch(port, dir, options)
    },
    async stop() {
      await terminate(child, 'SIGKILL')
      await rm(dir, { recursive: true, force: true })
    },
  }
}

async function clusterOk(port: number): Promise<boolean> {
  const { stdout } = await run('redis-cli', ['-p', String(port), 'cluster', 'info'])
  return stdout.includes('cluster_state:ok')
}

// Three (or more) masters, no replicas, joined with `redis-cli --cluster create`; resolves once every
// node reports cluster_state:ok.
export async function startRedisCluster(masters = 3): Promise<RedisCluster> {
  const servers: RedisServer[] = []
  try {
    for (let i = 0; i < masters; i++) servers.push(await startRedis({ cluster: true }))
    const addresses = servers.map((s) => `127.0.0.1:${s.port}`)
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'])
    const deadline = Date.now() + 15_000
    for (const s of servers) {
      while (!(await clusterOk(s.port))) {
        if (Date.now() > deadline) throw new Error(`cluster node ${s.port} never reached cluster_state:ok`)
        await new Promise((r) => setTimeout(r, 100))
      }
    }
  } catch (err) {
    await Promise.all(servers.map((s) => s.stop()))
    throw err
  }
  const nodes = servers.map((s) => ({ host: s.host, port: s.port }))
  return {
    nodes,
    spec: nodes.map((n) => `${n.host}:${n.port}`).join(','),
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()))
    },
  }
}
