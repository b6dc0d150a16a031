import type { PlanLimits } from '../../limits/plans.ts'
import type { ApiKeyRecord, LimitDecision, Workspace } from '../../store/types.ts'

// Who is calling, under which plan, and what the limiter decided: request.auth once an API key is admitted
// (authenticate.ts, charge-limits.ts).
export interface AuthContext {
  key: ApiKeyRecord
  workspace: Workspace
  limits: PlanLimits
  decision: LimitDecision | null
}
