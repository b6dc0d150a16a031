import type { EndpointCounts } from '../endpoint-usage.ts'
import type { ApiKeyRecord, Environment, Project, UsageCounts, Workspace } from '../types.ts'

export interface WorkspaceUsage {
  workspace: UsageCounts
  keys: Record<string, UsageCounts>
  daily: Record<string, number>
}

// A usage line of the store log: a workspace's counters for a month, with only the keys that changed.
export interface UsageLine {
  t: 'usage'
  m: string
  w: string
  c: UsageCounts
  k: Record<string, UsageCounts>
  d: Record<string, number>
}

// An endpoint-usage line: a workspace-month's counts of the endpoints a flush changed (their totals).
export interface EndpointsLine {
  t: 'endpoints'
  m: string
  w: string
  e: Record<string, EndpointCounts>
}

// A record deleted (a workspace, project, environment or key), by id.
export interface DropLine {
  t: 'drop'
  k: 'workspace' | 'project' | 'environment' | 'key'
  id: string
}

export interface SnapshotState {
  workspaces: Workspace[]
  projects: Project[]
  environments: Environment[]
  keys: ApiKeyRecord[]
  // month → workspace id → counts
  usage: Record<string, Record<string, WorkspaceUsage>>
  // month → workspace id → endpoint → counts
  endpoints: Record<string, Record<string, Record<string, EndpointCounts>>>
}

function* array(name: string, records: readonly unknown[]): Generator<string> {
  yield `"${name}":[`
  for (let i = 0; i < records.length; i++) yield (i ? ',' : '') + JSON.stringify(records[i])
  yield ']'
}

function* object<T>(entries: Iterable<[string, T]>, each: (value: T) => Iterable<string>): Generator<string> {
  yield '{'
  let first = true
  for (const [name, value] of entries) {
    yield `${first ? '' : ','}${JSON.stringify(name)}:`
    yield* each(value)
    first = false
  }
  yield '}'
}

// The store.json document (after the journal's leading `{"log_from":n,`) as small pieces, one record
// at a time, so writing a snapshot of tens of thousands of keys never serialises them in one go.
export function* snapshotPieces(state: SnapshotState): Generator<string> {
  yield '"version":1,'
  yield* array('workspaces', state.workspaces)
  yield ','
  yield* array('projects', state.projects)
  yield ','
  yield* array('environments', state.environments)
  yield ','
  yield* array('keys', state.keys)
  yield ',"usage":'
  yield* object(Object.entries(state.usage), (byWs) =>
    object(Object.entries(byWs), function* usage(u) {
      yield `{"workspace":${JSON.stringify(u.workspace)},"daily":${JSON.stringify(u.daily)},"keys":`
      yield* object(Object.entries(u.keys), (counts) => [JSON.stringify(counts)])
      yield '}'
    }),
  )
  yield ',"endpoints":'
  yield* object(Object.entries(state.endpoints), (byWs) =>
    object(Object.entries(byWs), (endpoints) => [JSON.stringify(endpoints)]),
  )
  yield '}'
}
