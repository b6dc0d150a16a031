import { AppError, type ErrorCode } from '../../../errors.ts'

// A schema refused while it is read or compiled, with the code for why: not a valid schema (or nested too
// deep), a reference that names nothing bundled, a regular expression that cannot run in linear time.
const CODES = {
  schema: 'ERR_INVALID_SCHEMA',
  depth: 'ERR_INVALID_SCHEMA',
  ref: 'ERR_SCHEMA_REF_UNRESOLVED',
  regex: 'ERR_UNSUPPORTED_REGEX',
} as const satisfies Record<string, ErrorCode>

export class SchemaError extends AppError {
  constructor(message: string, kind: keyof typeof CODES = 'schema', details?: Record<string, unknown>) {
    super(CODES[kind], message, details)
  }
}
