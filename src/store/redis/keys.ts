// Every key a workspace owns carries the hash tag {ws:<id>}, so one Lua script only ever touches one
// cluster slot. The few global keys (indexes from a key hash or an id to its workspace, the list of
// workspaces) are read on their own, never inside a script, so they need no tag.
export class RedisKeys {
  readonly channel: string
  readonly prefix: string
  #p: string

  constructor(prefix: string) {
    this.prefix = prefix
    this.#p = prefix
    this.channel = `${prefix}:invalidate`
  }

  workspace(ws: string): string {
    return `${this.#p}:{ws:${ws}}:ws`
  }

  // hash: project name → project record (JSON)
  projects(ws: string): string {
    return `${this.#p}:{ws:${ws}}:projects`
  }

  // hash: environment name → environment record (JSON), one per project
  environments(ws: string, projectId: string): string {
    return `${this.#p}:{ws:${ws}}:envs:${projectId}`
  }

  key(ws: string, keyId: string): string {
    return `${this.#p}:{ws:${ws}}:key:${keyId}`
  }

  // set of the workspace's key ids
  keys(ws: string): string {
    return `${this.#p}:{ws:${ws}}:keys`
  }

  // sorted set of the workspace's key ids by creation time (ms): pages of the key list
  keysByTime(ws: string): string {
    return `${this.#p}:{ws:${ws}}:keys:bytime`
  }

  // hash: id of a key a rotation issued → id of the key it replaced (the console shows both ends of a
  // rotation); its field '*' says every rotation of the workspace is in it (older versions did not write it)
  keyRotations(ws: string): string {
    return `${this.#p}:{ws:${ws}}:keys:rotated-from`
  }

  // hash of one UTC month's counters: requests / refused_*, k:<key id>:<counter>, d:<DD>; and the GCRA
  // state the limit decision reads with them (tw, tk:<key id>), so one decision touches one key
  // a month's usage hash: live traffic's, or test mode's (kept apart, same hash tag, so same slot)
  usage(ws: string, month: string, mode?: 'live' | 'test'): string {
    return mode === 'test'
      ? `${this.#p}:{ws:${ws}}:usage-test:${month}`
      : `${this.#p}:{ws:${ws}}:usage:${month}`
  }

  // hash of one UTC month's per-endpoint counts (src/store/endpoint-usage.ts): "<endpoint>|<counter>"
  endpoints(ws: string, month: string): string {
    return `${this.#p}:{ws:${ws}}:endpoints:${month}`
  }

  // global: set of all workspace ids
  workspaceIds(): string {
    return `${this.#p}:workspaces`
  }

  // global: sorted set of all workspace ids by creation time (ms): pages of the workspace list
  workspacesByTime(): string {
    return `${this.#p}:workspaces:bytime`
  }

  // global: set once, by the gateway that creates the first workspace (SET NX)
  bootstrap(): string {
    return `${this.#p}:bootstrap`
  }

  // global: key hash → "<workspace id> <key id>"
  keyByHash(hash: string): string {
    return `${this.#p}:keyhash:${hash}`
  }

  // global: key id → workspace id
  keyWorkspace(keyId: string): string {
    return `${this.#p}:keyws:${keyId}`
  }

  // global: project id → workspace id
  projectWorkspace(projectId: string): string {
    return `${this.#p}:projectws:${projectId}`
  }
}
