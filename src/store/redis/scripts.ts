import { readFileSync } from 'node:fs'
import type { Cluster, Redis, Result } from 'ioredis'

// Each Redis operation that must be atomic is one Lua file (its header names KEYS, ARGV and the
// reply), registered once per client with defineCommand: ioredis sends EVALSHA and falls back to EVAL
// only when a server has not seen the script yet.
const SCRIPTS = {
  anvilPatchRecord: { file: 'patch-record.lua', numberOfKeys: 1 },
  anvilEnsureField: { file: 'ensure-field.lua', numberOfKeys: 1 },
  anvilRefund: { file: 'refund.lua', numberOfKeys: 1 },
  anvilPageIds: { file: 'page-ids.lua', numberOfKeys: 1 },
  anvilRenameField: { file: 'rename-field.lua', numberOfKeys: 1 },
  anvilAddEndpointUsage: { file: 'add-endpoint-usage.lua', numberOfKeys: 2 },
  // variable key counts: the caller passes numkeys first
  anvilConsume: { file: 'consume.lua', numberOfKeys: undefined },
  anvilEnsureEnvironment: { file: 'ensure-environment.lua', numberOfKeys: undefined },
  anvilCreateKey: { file: 'create-key.lua', numberOfKeys: undefined },
  anvilDeleteScope: { file: 'delete-scope.lua', numberOfKeys: undefined },
} as const

const sources = Object.fromEntries(
  Object.entries(SCRIPTS).map(([name, s]) => [name, readFileSync(new URL(s.file, import.meta.url), 'utf8')]),
)

declare module 'ioredis' {
  interface RedisCommander<Context> {
    // a batch of limit decisions: numkeys, keys, then arguments (consume-batch.ts encodeBatch; ioredis
    // flattens an argument that is an array); the reply is binary (packed doubles), so only the Buffer
    // form ioredis defines beside every script is used
    anvilConsumeBuffer(
      ...numKeysThenKeysThenArgs: (string | number | (string | number)[])[]
    ): Result<Buffer, Context>
    anvilPatchRecord(record: string, ...args: string[]): Result<string[], Context>
    anvilRefund(usage: string, keyId: string, day: string): Result<number, Context>
    anvilPageIds(sortedSet: string, cursor: string, limit: number): Result<string[] | null, Context>
    anvilEnsureField(hash: string, field: string, value: string, max: number): Result<string, Context>
    anvilEnsureEnvironment(
      numKeys: number,
      ...keysThenArgs: (string | number)[]
    ): Result<string | null, Context>
    anvilCreateKey(numKeys: number, ...keysThenArgs: (string | number)[]): Result<number, Context>
    anvilDeleteScope(
      numKeys: number,
      ...keysThenArgs: (string | number)[]
    ): Result<(number | string)[], Context>
    anvilRenameField(hash: string, id: string, name: string): Result<string | null, Context>
    anvilAddEndpointUsage(
      usage: string,
      workspace: string,
      expireMs: number,
      ...fieldsAndIncrements: (string | number)[]
    ): Result<number, Context>
  }
}

// page-ids.lua for another client (the console account store's): the same file, registered once there
export function definePageIds(client: Redis | Cluster): void {
  client.defineCommand('anvilPageIds', { lua: sources.anvilPageIds!, numberOfKeys: 1 })
}

export function defineScripts(client: Redis | Cluster): void {
  for (const [name, s] of Object.entries(SCRIPTS)) {
    client.defineCommand(name, {
      lua: sources[name]!,
      ...(s.numberOfKeys === undefined ? {} : { numberOfKeys: s.numberOfKeys }),
    })
  }
}
