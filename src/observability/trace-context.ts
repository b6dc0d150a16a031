// W3C Trace Context fields, as carried by HTTP headers and by a job's queue entry (src/jobs/redis/), so
// that a job's run on a worker continues the trace of the request that queued it (src/tracing/).
export interface TraceCarrier {
  traceparent: string
  tracestate?: string
}
