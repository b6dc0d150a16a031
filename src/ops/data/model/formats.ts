// The formats data/convert reads and writes (types.ts re-exports them for the route).
export const DATA_FORMATS = ['json', 'yaml', 'toml', 'csv'] as const
export type DataFormat = (typeof DATA_FORMATS)[number]
