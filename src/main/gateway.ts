import { mkdir } from 'node:fs/promises'
import { ConfigError, loadConfig } from '../config.ts'
import { resolveAdminToken } from '../http/admin/admin-token.ts'
import { buildAdminApp } from '../http/admin-app.ts'
import { buildApp } from '../http/app.ts'
import { loadTls, selfSignedCertPath } from '../http/transport/tls.ts'
import { bootstrapIfEmpty } from '../keys/bootstrap.ts'
import { collectAfterBoot, growOldGenerationInWideSteps } from '../lib/gc.ts'
import { StartupError } from '../lib/startup-error.ts'
import { VERSION } from '../lib/version.ts'
import { openRuntime } from '../runtime.ts'
import { DataDirInUseError } from '../store/memory/data-dir-lock.ts'
import { reachableAdminUrl, recordAdminListener } from './admin-listener.ts'
import { describeBackends } from './banner.ts'
import {
  clearFirstKeyPending,
  makeKeyCommand,
  markFirstKeyPending,
  noKeyShownLines,
  pendingFirstKey,
} from './first-key.ts'
import { deliverFirstStartSecrets } from './first-start.ts'
import { listenFailure } from './listen-error.ts'

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost'
  return host.includes(':') ? `[${host}]` : host
}

// config → resources → apps → listen; SIGTERM/SIGINT: stop accepting, drain, close, exit 0.
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`)
      process.exit(1)
    }
    throw err
  }
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 })
  let runtime: Awaited<ReturnType<typeof openRuntime>>
  try {
    runtime = await openRuntime(config)
  } catch (err) {
    // another gateway owns this DATA_DIR: say so plainly instead of a stack trace
    if (err instanceof DataDirInUseError) {
      process.stderr.write(`${err.message}\n`)
      process.exit(1)
    }
    throw err
  }
  const tls = await loadTls(config.tls, config.dataDir)
  const admin = await resolveAdminToken(config.adminToken, config.dataDir)
  const app = await buildApp(runtime, { tls })
  const adminApp = await buildAdminApp(runtime, { adminToken: admin.token })

  let closing = false
  async function shutdown(signal: string): Promise<void> {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down: draining in-flight requests')
    const timer = setTimeout(() => {
      app.log.error('shutdown timed out; exiting')
      process.exit(1)
    }, config.shutdownTimeoutMs)
    timer.unref()
    await Promise.allSettled([app.close(), adminApp.close()])
    await runtime.close()
    clearTimeout(timer)
    process.exit(0)
  }
  process.once('SIGTERM', () => void shutdown('SIGTERM'))
  process.once('SIGINT', () => void shutdown('SIGINT'))

  await Promise.all([app.ready(), adminApp.ready()])
  collectAfterBoot()
  growOldGenerationInWideSteps()
  // both listeners first: a start that cannot listen (a port in use) must not have made the first key,
  // which only this start could show
  const listeners = [
    { app, what: 'the API listener', host: config.host, port: config.port, hostVariable: 'HOST' },
    {
      app: adminApp,
      what: 'the internal listener (metrics, admin API)',
      host: config.adminHost,
      port: config.adminPort,
      hostVariable: 'ADMIN_HOST',
    },
  ] as const
  for (const l of listeners) {
    try {
      await l.app.listen({ port: l.port, host: l.host })
    } catch (err) {
      const portVariable = l.hostVariable === 'HOST' ? 'PORT' : 'ADMIN_PORT'
      const message = listenFailure(err, { ...l, portVariable })
      if (message === undefined) throw err
      process.stderr.write(`${message}\n`)
      await Promise.allSettled([app.close(), adminApp.close()])
      await runtime.close()
      process.exit(1)
    }
  }
  const apiPort = (app.server.address() as { port: number }).port
  const adminPort = (adminApp.server.address() as { port: number }).port
  const base = `https://${hostForUrl(config.host)}:${apiPort}`
  // the admin CLI reads where to reach this listener, and where its token comes from, from DATA_DIR
  await recordAdminListener(config.dataDir, {
    url: reachableAdminUrl(config.adminHost, adminPort),
    pid: process.pid,
    started_at: new Date().toISOString(),
    ...(admin.fromEnvironment
      ? { token: 'environment' as const }
      : { token: 'file' as const, token_file: admin.path }),
  })
  // a key left unshown by an earlier start, read before this start may make (and mark) one
  const earlier = await pendingFirstKey(config.dataDir)
  const first = config.bootstrap
    ? await bootstrapIfEmpty(runtime.store, config.defaultPlan, (id) =>
        markFirstKeyPending(config.dataDir, id),
      )
    : undefined
  const backends = describeBackends(config)
  app.log.info({ ...backends.fields, port: apiPort, admin_port: adminPort }, 'gateway listening')
  const lines = [
    '',
    `Anvil ${VERSION} (Node ${process.version}) listening on ${base} (TLS: HTTP/1.1 and HTTP/2)`,
    `  docs:          ${base}/docs`,
    `  console:       ${base}/console`,
    `  metrics/admin: ${reachableAdminUrl(config.adminHost, adminPort)}/metrics`,
    `  data dir:      ${config.dataDir}`,
    `  store:         ${backends.store}`,
    `  jobs:          ${backends.jobs}`,
  ]
  if (tls.selfSigned)
    lines.push(`  certificate:   self-signed, ${selfSignedCertPath(config.dataDir)} (${tls.fingerprint})`)
  const secrets: string[] = []
  if (admin.generated)
    secrets.push(`  ADMIN_TOKEN:   ${admin.token}  (saved in ${config.dataDir}/admin-token.json)`)
  if (first) {
    const cacert = tls.selfSigned ? ` --cacert '${selfSignedCertPath(config.dataDir)}'` : ''
    secrets.push(
      '',
      `First API key (shown once; only its hash is stored), workspace ${first.workspaceId}, plan ${config.defaultPlan}`,
      `(the local development workspace; DEFAULT_PLAN sets its plan, CONSOLE_PLAN that of console sign-ups):`,
      `  ${first.key}`,
      '',
      'Try it:',
      `  curl${cacert} ${base}/v1/hash/sha256 -H 'Authorization: Bearer ${first.key}' -H 'Content-Type: application/json' -d '{"input":"hello"}'`,
    )
  } else {
    lines.push(...noKeyShownLines(earlier))
  }
  let shown: string[]
  try {
    shown = await deliverFirstStartSecrets({
      lines: secrets,
      dataDir: config.dataDir,
      terminal: process.stdout.isTTY === true,
    })
  } catch (err) {
    // the secrets could not be written where they may be read: never print them instead (stdout is a log)
    const reason = err instanceof Error ? err.message : String(err)
    shown = ['', `First-start secrets could not be written to ${config.dataDir}: ${reason}.`]
    if (first)
      shown.push(
        'The first API key is lost (only its hash is stored). Make another one, once that is fixed:',
        `  ${makeKeyCommand(first.workspaceId)}`,
      )
    if (admin.generated) shown.push(`The admin token is saved in ${config.dataDir}/admin-token.json.`)
  }
  // shown (or its loss reported): no later start needs to speak of it
  if (first || earlier) await clearFirstKeyPending(config.dataDir)
  process.stdout.write(`${[...lines, ...shown].join('\n')}\n\n`)
}

try {
  await main()
} catch (err) {
  // a start-up failure the operator fixes (a damaged file in DATA_DIR): its message, not a stack trace
  if (!(err instanceof StartupError)) throw err
  process.stderr.write(`${err.message}\n`)
  process.exit(1)
}
