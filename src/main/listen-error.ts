// A listener that cannot bind is a configuration problem a person fixes with one variable: say which
// listener, which address, why, and which variable changes it, instead of Node's stack trace.
export interface Listener {
  // what it is, for the message: "the API listener"
  what: string
  host: string
  port: number
  // the variables that set its address
  portVariable: 'PORT' | 'ADMIN_PORT'
  hostVariable: 'HOST' | 'ADMIN_HOST'
}

const shown = (host: string) => (host.includes(':') ? `[${host}]` : host)

// The message for a bind failure, or undefined for an error that is not one (rethrown by the caller).
export function listenFailure(err: unknown, l: Listener): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  const where = `${shown(l.host)}:${l.port}`
  const head = `Cannot start ${l.what} on ${where}`
  switch (code) {
    case 'EADDRINUSE':
      return (
        `${head}: port ${l.port} is already in use (another Anvil gateway, or another program). ` +
        `Stop it, or choose another port with ${l.portVariable} (e.g. ${l.portVariable}=${l.port + 1}).`
      )
    case 'EACCES':
      return (
        `${head}: permission denied (ports below 1024 need privileges). ` +
        `Choose a port from 1024 up with ${l.portVariable}.`
      )
    case 'EADDRNOTAVAIL':
      return (
        `${head}: no network interface of this machine has the address ${l.host}. ` +
        `Set ${l.hostVariable} to one it has (127.0.0.1 for this machine only, 0.0.0.0 for every interface).`
      )
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${head}: the name ${l.host} does not resolve. Set ${l.hostVariable} to an address or a name that does.`
    default:
      return undefined
  }
}
