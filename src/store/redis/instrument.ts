import { performance } from 'node:perf_hooks'
import type { Cluster, Command, Redis } from 'ioredis'

export type RedisErrorKind = 'timeout' | 'connection' | 'other'

// What the store reports about its Redis traffic; the metrics side implements it (src/observability/).
export interface RedisObserver {
  // name: the command (lowercase) or the Lua script's defineCommand name; seconds: client-side latency
  command(name: string, seconds: number): void
  error(kind: RedisErrorKind): void
}

const CONNECTION_MESSAGE =
  /connection is closed|stream isn't writeable|cluster isn't ready|cluster is disconnect|startup nodes|node is disconnected|max retries per request|failed to refresh slots/i

// A reply error means Redis answered (a script or type error); anything else is the path to Redis.
export function errorKind(err: unknown): RedisErrorKind {
  if (!(err instanceof Error)) return 'other'
  if (/timed out|ETIMEDOUT/.test(err.message)) return 'timeout'
  if (err.name === 'ReplyError') return 'other'
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string' && /^(ECONN|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH)/.test(code)) {
    return 'connection'
  }
  if (err.name === 'MaxRetriesPerRequestError' || err.name === 'ClusterAllFailedError') return 'connection'
  return CONNECTION_MESSAGE.test(err.message) ? 'connection' : 'other'
}

// Times every command a client sends, from the first send to its settled reply, measured on the client:
// queueing behind an auto-pipelined batch, redirections and timeouts included. sendCommand is the one
// door all commands go through (plain calls, pipelines, MULTI, defineCommand scripts); a command sent
// again after a redirection or reconnection is timed once. Call after defineScripts, so EVALSHA calls
// are named by their script.
export function instrumentClient(client: Redis | Cluster, observer: RedisObserver): void {
  const scripts = new Map<string, string>()
  function learnScripts(): void {
    for (const [name, script] of Object.entries(client.scriptsSet as Record<string, { sha: string }>)) {
      scripts.set(script.sha, name)
    }
  }
  learnScripts()
  const seen = new WeakSet<Command>()
  const send = client.sendCommand.bind(client) as (command: Command, ...rest: unknown[]) => unknown

  function nameOf(command: Command): string {
    if (command.name !== 'evalsha') return command.name
    const sha = String(command.args[0])
    // a library that defines its scripts later (BullMQ does, per command) is looked up again, once per sha
    if (!scripts.has(sha)) learnScripts()
    return scripts.get(sha) ?? command.name
  }

  client.sendCommand = function timedSendCommand(command: Command, ...rest: unknown[]) {
    if (!seen.has(command)) {
      seen.add(command)
      const name = nameOf(command)
      const started = performance.now()
      command.promise.then(
        () => observer.command(name, (performance.now() - started) / 1000),
        (err: unknown) => {
          observer.command(name, (performance.now() - started) / 1000)
          observer.error(errorKind(err))
        },
      )
    }
    return send(command, ...rest)
  }
}
