import net from 'node:net'
import tls from 'node:tls'

export interface RawAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

// One HTTP/1.1 connection driven by hand (raw bytes on a TLS or TCP socket), so a test controls exactly
// when each request goes out and sees when the server closes the connection.
export interface RawConnection {
  socket: net.Socket
  // when the server closed (or reset) the connection, in ms since it opened; undefined while open
  closedAfter(): number | undefined
  closed: Promise<number>
  // writes `text` and resolves with the next complete answer (Content-Length framing)
  request(text: string): Promise<RawAnswer>
}

export async function openRaw(options: { port: number; ca?: string }): Promise<RawConnection> {
  const opened = Date.now()
  const socket = options.ca
    ? tls.connect({ host: '127.0.0.1', port: options.port, ca: options.ca, ALPNProtocols: ['http/1.1'] })
    : net.connect(options.port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => {
    socket.once(options.ca ? 'secureConnect' : 'connect', () => resolve())
    socket.once('error', reject)
  })
  socket.on('error', () => {})
  let closedAt: number | undefined
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => {
      closedAt = Date.now() - opened
      resolve(closedAt)
    }),
  )
  let buffered = ''
  let waiting: (() => void) | undefined
  socket.setEncoding('latin1')
  socket.on('data', (d: string) => {
    buffered += d
    waiting?.()
  })
  socket.on('close', () => waiting?.())

  function take(): RawAnswer | undefined {
    const end = buffered.indexOf('\r\n\r\n')
    if (end < 0) return undefined
    const [line, ...fields] = buffered.slice(0, end).split('\r\n')
    const headers: Record<string, string> = {}
    for (const f of fields) {
      const i = f.indexOf(':')
      headers[f.slice(0, i).toLowerCase()] = f.slice(i + 1).trim()
    }
    const length = Number(headers['content-length'] ?? 0)
    if (buffered.length < end + 4 + length) return undefined
    const body = buffered.slice(end + 4, end + 4 + length)
    buffered = buffered.slice(end + 4 + length)
    return { status: Number(line!.split(' ')[1]), headers, body }
  }

  return {
    socket,
    closed,
    closedAfter: () => closedAt,
    request(text) {
      socket.write(text)
      return new Promise((resolve, reject) => {
        waiting = () => {
          const answer = take()
          if (answer) {
            waiting = undefined
            resolve(answer)
          } else if (closedAt !== undefined) {
            waiting = undefined
            reject(new Error('connection closed before a complete answer'))
          }
        }
        waiting()
      })
    },
  }
}
