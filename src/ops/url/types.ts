// The url family's plain types, for the ops and their routes alike.
export type QueryScalar = string | number | boolean | null
export type QueryPairInput = [string, QueryScalar]
export type QueryParams = QueryPairInput[] | { [name: string]: QueryScalar | QueryScalar[] }
