// json.format's plain types, for the op and its route alike.
export type { JsonFormatOptions, JsonFormatResult } from './format.ts'
