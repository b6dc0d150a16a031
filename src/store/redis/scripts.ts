import type { Cluster, Redis } from 'ioredis'
import { defineCommands, STORE_COMMANDS } from './commands.ts'

// page-ids.lua for another client (the console account store's): the same file, registered once there
export function definePageIds(client: Redis | Cluster): void {
  defineCommands(client, STORE_COMMANDS, ['anvilPageIds'])
}

// The store's commands, on its client: every script of this folder (src/store/redis/commands.ts).
export function defineScripts(client: Redis | Cluster): void {
  defineCommands(client, STORE_COMMANDS)
}
