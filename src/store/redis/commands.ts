import { readdirSync, readFileSync } from 'node:fs'
import type { Cluster, Redis } from 'ioredis'

// The one registry of the Redis commands (BullMQ's way): each operation that must be atomic is one Lua
// file, whose header gives its key count first (`-- keys: 3`, or `-- keys: numkeys` when the caller passes
// the count first) and then names its command (`-- anvilJobStart: …`). A folder's
// scripts are registered on a client with defineCommand, once: ioredis sends EVALSHA and falls back to
// EVAL only when a server has not seen a script yet. Their signatures are src/store/redis/ioredis-augment.ts.

export interface Command {
  name: string
  lua: string
  // undefined: the caller passes the number of keys first
  numberOfKeys: number | undefined
}

const HEADER = /^-- keys: (\d+|numkeys)\b.*\n-- ([A-Za-z][A-Za-z0-9]*): /

const folders = new Map<string, Command[]>()

// The commands of a folder's *.lua files, read once.
export function commandsIn(folder: URL): Command[] {
  let commands = folders.get(folder.href)
  if (!commands) {
    commands = readdirSync(folder)
      .filter((f) => f.endsWith('.lua'))
      .sort()
      .map((file) => {
        const lua = readFileSync(new URL(file, folder), 'utf8')
        const header = HEADER.exec(lua)
        if (!header)
          throw new Error(`${file}: the header gives no key count and command (-- keys: N, -- name: …)`)
        return {
          name: header[2]!,
          lua,
          numberOfKeys: header[1] === 'numkeys' ? undefined : Number(header[1]),
        }
      })
    folders.set(folder.href, commands)
  }
  return commands
}

// Registers the folder's commands (or those of them named) on the client.
export function defineCommands(client: Redis | Cluster, folder: URL, only?: readonly string[]): void {
  for (const c of commandsIn(folder)) {
    if (only && !only.includes(c.name)) continue
    client.defineCommand(c.name, {
      lua: c.lua,
      ...(c.numberOfKeys === undefined ? {} : { numberOfKeys: c.numberOfKeys }),
    })
  }
}

// This folder's commands: the store's own (limits, records, idempotency, pages).
export const STORE_COMMANDS = new URL('./', import.meta.url)
