import type { FastifyRequest } from 'fastify'

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

// The host people reached the console on is the one their API calls should go to; a Host header
// that is not a plain host[:port] is not echoed into a command line someone will paste.
export function publicHost(request: FastifyRequest): string {
  return HOST.test(request.host) ? request.host : 'localhost:8443'
}

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`

// The name the console offers the gateway's self-signed certificate under (GET /console/certificate.pem):
// the curl line names that file, which works on any machine the reader saves it to, where a path on the
// server's disk works only on the server.
export const CERTIFICATE_FILE = 'anvil-cert.pem'

export function curlExample(host: string, key: string, selfSigned: boolean): string {
  const cacert = selfSigned ? ` --cacert ${CERTIFICATE_FILE}` : ''
  return (
    `curl${cacert} https://${host}/v1/hash/sha256 -H ${shellQuote(`Authorization: Bearer ${key}`)}` +
    ` -H 'Content-Type: application/json' -d '{"input":"hello"}'`
  )
}
