// The plans, by name: apart from their limits (plans.ts, which reads every op's caps), so that what names
// them only (the admin CLI) does not load the ops.
export const PLAN_NAMES = ['free', 'pro', 'business'] as const
export type PlanName = (typeof PLAN_NAMES)[number]
