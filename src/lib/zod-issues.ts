import type { z } from 'zod'

// ERR_VALIDATION details from a zod error: at most 20 issues, each with a dotted path.
export function issuesOf(error: z.ZodError, prefix?: string): { path: string; message: string }[] {
  return error.issues.slice(0, 20).map((i) => ({
    path: [prefix, ...i.path.map(String)].filter((p) => p !== undefined && p !== '').join('.'),
    message: i.message,
  }))
}
