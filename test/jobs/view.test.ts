import { describe, expect, it } from 'vitest'
import { ERRORS } from '../../src/errors.ts'
import type { JobMeta } from '../../src/jobs/types.ts'
import { jobView } from '../../src/jobs/view.ts'

const failed = (error: JobMeta['error']): JobMeta => ({
  id: `job_${'A'.repeat(24)}`,
  workspace_id: 'ws_1',
  operation: 'json.patch',
  plan: 'pro',
  tier: 'paid',
  budget_ms: 1000,
  max_result_bytes: 1024,
  status: 'failed',
  created_at: 0,
  finished_at: 1,
  expires_at: 2,
  error,
  attempts: 1,
  stalls: 0,
})

// A failed job's `error` is documented with the error table's ErrorCode and ErrorType enums.
describe('jobView', () => {
  it("shows a failed job's error as the synchronous endpoint would, type from the code", () => {
    const view = jobView(failed({ code: 'ERR_PATCH_TEST_FAILED', message: 'no', details: { index: 0 } }))
    expect(view.error).toEqual({
      type: 'invalid_request',
      message: 'no',
      code: 'ERR_PATCH_TEST_FAILED',
      details: { index: 0 },
    })
  })

  it('shows a code this gateway does not know (a newer worker wrote it) as ERR_INTERNAL', () => {
    const view = jobView(failed({ code: 'ERR_FROM_THE_FUTURE', message: 'new', details: { x: 1 } }))
    expect(view.error).toEqual({
      type: 'api_error',
      message: ERRORS.ERR_INTERNAL.message,
      code: 'ERR_INTERNAL',
      details: undefined,
    })
  })
})
