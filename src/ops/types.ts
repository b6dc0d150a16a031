// Plain types and constant lists shared by several op families (a route may import them: docs/architecture.md).

export const BYTE_ENCODINGS = ['utf8', 'hex', 'base64', 'base64url'] as const
export type ByteEncoding = (typeof BYTE_ENCODINGS)[number]
export const DIGEST_ENCODINGS = ['hex', 'base64', 'base64url'] as const
export type DigestEncoding = (typeof DIGEST_ENCODINGS)[number]
