import openapiTS, { astToString } from 'openapi-typescript'

// openapi-typescript, resolved from this folder (it brings the TypeScript 5 it builds types with)
export async function generateTypes(document: Record<string, unknown>): Promise<string> {
  return astToString(await openapiTS(document as never))
}
