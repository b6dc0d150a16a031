import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { z } from 'zod'
import { AppError } from '../../errors.ts'
import { RawJson } from '../../lib/raw-json.ts'
import { issuesOf, parseInput, validationMessage } from '../../lib/zod-issues.ts'

function isStream(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && typeof (value as { pipe?: unknown }).pipe === 'function'
  )
}

function isEmpty(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  for (const _ in value) return false
  return true
}

// validate: the lane's step after parse. zod is the validator for every route part; responses are plain JSON.stringify (fast, no double work).
async function zodCompilerPlugin(app: FastifyInstance): Promise<void> {
  app.setValidatorCompiler(function compileZod({ schema, httpPart }) {
    const zod = schema as unknown as z.ZodType
    const prefix = httpPart === 'body' ? undefined : httpPart === 'querystring' ? 'query' : httpPart
    // most requests carry no query string: its parse (defaults filled in) is the same every time, and the
    // answer is one frozen object (nothing reads a request's query to change it)
    const noQuery = httpPart === 'querystring' ? zod.safeParse({}) : undefined
    const noQueryResult = noQuery?.success ? Object.freeze({ value: Object.freeze(noQuery.data) }) : undefined
    return function validateWithZod(data: unknown) {
      if (httpPart === 'body' && (isStream(data) || data instanceof RawJson)) return { value: data }
      if (noQueryResult !== undefined && isEmpty(data)) return noQueryResult
      const r = parseInput(zod, data)
      if (r.success) return { value: r.data }
      const issues = issuesOf(r.issues, prefix)
      const message =
        httpPart === 'body' && (data === null || typeof data !== 'object' || Array.isArray(data))
          ? 'The body must be a JSON object.'
          : validationMessage(issues, prefix)
      return { error: new AppError('ERR_VALIDATION', message, { issues }) }
    }
  })
  app.setSerializerCompiler(() => JSON.stringify)
}

export const zodCompiler = fp(zodCompilerPlugin, { name: 'anvil-zod' })
