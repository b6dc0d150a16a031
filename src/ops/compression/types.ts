// The compression family's constant lists and bounds, for the ops and their routes alike.

// deflate is the zlib format (RFC 1950), as HTTP's Content-Encoding: deflate means; deflate-raw the bare
// RFC 1951 stream (docs/decisions.md, "Compression endpoints")
export const ALGORITHMS = ['gzip', 'deflate', 'deflate-raw', 'brotli', 'zstd'] as const
export type Algorithm = (typeof ALGORITHMS)[number]

// each algorithm's levels (zstd's negative "fast" levels are not offered) and the default level, one every
// plan allows: zlib's own 6, zstd's own 3, and 6 for brotli, whose own default (11) costs ~30x more
export const LEVELS: Record<Algorithm, { min: number; max: number; default: number }> = {
  gzip: { min: 0, max: 9, default: 6 },
  deflate: { min: 0, max: 9, default: 6 },
  'deflate-raw': { min: 0, max: 9, default: 6 },
  brotli: { min: 0, max: 11, default: 6 },
  zstd: { min: 1, max: 22, default: 3 },
}

// the per-plan caps, by name (the plans table's columns): a level cap per kind of encoder, and what a
// decompression may expand to
export const LEVEL_CAPS: Record<Algorithm, string> = {
  gzip: 'compression_deflate_max_level',
  deflate: 'compression_deflate_max_level',
  'deflate-raw': 'compression_deflate_max_level',
  brotli: 'compression_brotli_max_level',
  zstd: 'compression_zstd_max_level',
}
export const OUTPUT_BYTES_CAP = 'compression_max_output_bytes'
export const RATIO_CAP = 'compression_max_ratio'
export const ZSTD_WINDOW_CAP = 'compression_zstd_max_window_log'

// the ratio cap applies once the output is past this much (a small input may expand a lot, harmlessly):
// below the 1 MiB at which a raw answer commits its 200 (src/http/body/stream-transform.ts COMMIT_AFTER), so
// a bomb is always answered with its 422, never broken off
export const RATIO_GRACE_BYTES = 512 * 1024
// a decompression answered as JSON holds its whole output: at most this many bytes (~85 MiB of Base64)
export const JSON_OUTPUT_LIMIT = 64 * 1024 * 1024

export const DECOMPRESS_OUTPUT_ENCODINGS = ['base64', 'base64url', 'hex', 'utf8'] as const
export type DecompressOutputEncoding = (typeof DECOMPRESS_OUTPUT_ENCODINGS)[number]
export const COMPRESS_OUTPUT_ENCODINGS = ['base64', 'base64url', 'hex'] as const
export type CompressOutputEncoding = (typeof COMPRESS_OUTPUT_ENCODINGS)[number]
