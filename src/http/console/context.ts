import type { KeyActivity } from '../../accounts/key-activity.ts'
import type { SessionManager } from '../../accounts/session.ts'
import type { AccountStore, Session } from '../../accounts/store/types.ts'
import type { JobService } from '../../jobs/service.ts'
import type { PlanName, PlanTable } from '../../limits/plans.ts'
import type { EndpointUsageRecorder } from '../../store/endpoint-usage.ts'
import type { Store } from '../../store/types.ts'

// What every console route and page is built with.
export interface ConsoleDeps {
  store: Store
  // the bytes each workspace's jobs keep (its job storage budget's count), and its jobs: a
  // workspace with jobs queued or running is not deleted
  jobs: Pick<JobService, 'storedBytes' | 'list'>
  accounts: AccountStore
  sessions: SessionManager
  activity: KeyActivity
  // per-endpoint usage, with what this gateway has not written to the store yet
  endpointUsage: EndpointUsageRecorder
  plans: PlanTable
  // plan of the workspaces people create here (CONSOLE_PLAN)
  defaultPlan: PlanName
  // workspaces one user may own
  maxWorkspaces: number
  clock: () => number
  // --cacert for the curl example when the gateway runs on its self-signed certificate
  caCertPath: string | null
}

export interface SignedInUser {
  id: string
  email: string
  created_at: string
}

export interface ConsoleAuth {
  user: SignedInUser
  session: Session
}
