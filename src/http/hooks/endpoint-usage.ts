import type { FastifyReply, FastifyRequest } from 'fastify'
import type { EndpointUsageRecorder } from '../../store/endpoint-usage.ts'

export interface EndpointUsageOptions {
  recorder: EndpointUsageRecorder
  clock: () => number
}

// A workspace's answers and latencies per endpoint, for the console's usage page: every answer to a request
// whose key and scope passed (the limits' 429s included), under its route's pattern. The lane's record step
// calls it once the answer is out; it only counts in memory (EndpointUsageRecorder writes in batches).
export function endpointUse({
  recorder,
  clock,
}: EndpointUsageOptions): (request: FastifyRequest, reply: FastifyReply) => void {
  return function noteEndpointUse(request, reply) {
    const auth = request.auth
    const url = request.routeConfig?.url
    // a client that hung up got no answer: not counted, as in the metrics
    if (!auth || !url || (request.raw as { aborted?: boolean }).aborted === true) return
    recorder.note(auth.workspace.id, request.method, url, reply.statusCode, reply.elapsedTime, clock())
  }
}
