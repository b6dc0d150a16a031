// A streamed op's step on a pool thread (OpDescriptor.stream, src/ops/define.ts; workers/stream.ts feeds it):
// each chunk in, the output it completes out (in pieces of bounded size, so a chunk that expands a lot is
// never held whole and the thread can stop between pieces), whatever is left at the end. `answer` is the
// whole JSON success envelope (src/lib/envelope.ts) of a body answered as JSON, made from the output's
// pieces (in order) and the input's size, as UTF-8 bytes: from the output's bytes where that saves a string
// of it, from the pieces themselves where that saves joining them. write, end and answer may throw an
// AppError. A chunk is a view of the stream's input ring (workers/stream.ts), valid only until the output
// its write returns has been taken: a step that keeps bytes past that copies them.
export interface StreamStep {
  write(chunk: Uint8Array): Iterable<Uint8Array>
  end(): Uint8Array
  answer(output: readonly Uint8Array[], bytes: number): Uint8Array
}

// A raw body answered as JSON whose whole output the thread holds (its output and the envelope are one
// string) may be at most this large, whatever the plan's binary limit; streamed answers have no such cap.
export const HELD_ANSWER_LIMIT = 100 * 1024 * 1024

export const NOTHING = new Uint8Array(0)
