import type { Result } from 'ioredis'

// The one module augmentation of ioredis: the signatures of the commands the Lua scripts define (their
// registry: src/store/redis/commands.ts), whichever folder keeps the script.
declare module 'ioredis' {
  interface RedisCommander<Context> {
    // src/store/redis/*.lua
    // a batch of limit decisions: numkeys, keys, the numbers packed, the key ids (consume-batch.ts
    // encodeBatch; ioredis flattens an argument that is an array); the reply is binary (packed doubles),
    // so only the Buffer form ioredis defines beside every script is used
    anvilConsumeBuffer(
      numKeys: number,
      keys: string[],
      numbers: Buffer,
      keyIds: string[],
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
    anvilKeepIdempotent(
      record: string,
      kept: string,
      bytes: string,
      value: string,
      ttlMs: number,
      maxBytes: number,
      now: number,
      weight: number,
    ): Result<number, Context>
    // src/accounts/store/*.lua
    consoleTakeAttempt(
      key: string,
      now: number,
      free: number,
      baseMs: number,
      maxMs: number,
      forgetMs: number,
    ): Result<[number, number, number], Context>
    consoleAddMembership(
      members: string,
      workspaceId: string,
      membership: string,
      maxOwned: number,
    ): Result<number, Context>
    // src/jobs/redis/*.lua
    anvilJobStartBuffer(
      record: string,
      queued: string,
      active: string,
      now: number,
      stalls: number,
      id: string,
    ): Result<Buffer[], Context>
    anvilJobFinish(
      record: string,
      inFlight: string,
      queued: string,
      active: string,
      outcomeList: string,
      status: string,
      finishedAt: number,
      expiresAt: number,
      ttlMs: number,
      field: 'result' | 'error',
      value: string,
      id: string,
    ): Result<[number, number, string], Context>
    anvilJobRequeue(record: string, active: string, queued: string, id: string): Result<number, Context>
    anvilJobCancel(
      record: string,
      inFlight: string,
      queued: string,
      active: string,
      cancelled: string,
      now: number,
      expiresAt: number,
      ttlMs: number,
      id: string,
      force: '0' | '1',
    ): Result<'gone' | 'finished' | 'cancelled' | 'requested', Context>
    anvilJobCreate(
      record: string,
      inFlight: string,
      list: string,
      queued: string,
      active: string,
      completed: string,
      failed: string,
      cancelled: string,
      max: number,
      ttlMs: number,
      id: string,
      createdAt: number,
      ...fields: (string | Buffer)[]
    ): Result<number, Context>
    anvilJobProgress(record: string, fraction: string): Result<number, Context>
    anvilJobBytes(
      expiry: string,
      size: string,
      total: string,
      op: 'reserve' | 'set' | 'release' | 'read',
      now: number,
      workspaceId: string,
      jobId: string,
      bytes: number,
      expiresAt: number,
      workspaceMax: number,
      storeMax: number,
    ): Result<(number | string)[], Context>
    anvilJobPage(
      list: string,
      read: string,
      cursor: string,
      count: number,
      cursorScore: string,
    ): Result<string[] | null, Context>
  }
}
