// json.diff's plain limits, for the op and its route alike.

// Every step of a diff recurses once per nesting level. At this bound a diff needs under a fifth of
// the main thread's default stack (worker threads get more), so deep input is refused up front
// instead of overflowing somewhere inside.
export const MAX_DEPTH = 512
