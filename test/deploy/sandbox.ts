import { spawnSync } from 'node:child_process'
import { readFileSync, realpathSync } from 'node:fs'
import { join, posix } from 'node:path'
import { contextCopies, dockerCmd, dockerInstructions, dockerWorkdir } from '../operations/image.ts'

// A container of the Dockerfile's image, as Kubernetes runs it with the manifests' security context, made
// on this machine without an engine or an image: bubblewrap (Debian's `bubblewrap`) builds a root of
// nothing but the host's /usr and a few files of /etc (the libraries a Node binary needs), the files the Dockerfile COPYs
// at the paths it puts them (read from the Dockerfile: its WORKDIR, COPY sources and destinations), a Node
// binary where the node image keeps it, and the pod's volumes; then makes that root read-only
// (readOnlyRootFilesystem), runs as the image's user in a user namespace with every capability dropped
// and no_new_privs set (runAsUser, capabilities.drop: [ALL], allowPrivilegeEscalation: false), with the
// Dockerfile's ENV and the container's env and nothing else. What it cannot model: the runtime's seccomp
// profile (RuntimeDefault) and the image's own /usr.

export const ROOT = realpathSync(new URL('../../', import.meta.url).pathname)
const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
// the image is the last stage; the others only build what it copies `--from` them
const FINAL_STAGE = DOCKERFILE.slice(DOCKERFILE.lastIndexOf('\nFROM '))

// The node image's `node` user and group (docker-library/node: `groupadd --gid 1000 node && useradd
// --uid 1000 --gid node ... node`), which the Dockerfile's `USER node` names.
export const IMAGE_USERS: Record<string, { uid: number; gid: number }> = { node: { uid: 1000, gid: 1000 } }

// Why the sandbox cannot run here, or null. Under CI=true (.ci/run installs bubblewrap) that is an error.
export function sandboxUnavailable(): string | null {
  const probe = spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-user', '--', 'true'], {
    encoding: 'utf8',
  })
  if (probe.status === 0) return null
  const reason = probe.error
    ? 'bwrap not found (apt-get install bubblewrap)'
    : `bwrap cannot make a user namespace here: ${probe.stderr.trim()}`
  if (process.env.CI === 'true') throw new Error(`CI=true but ${reason}`)
  return reason
}

export function imageUser(): { uid: number; gid: number } {
  const user = dockerInstructions(DOCKERFILE)
    .filter((i) => i.keyword === 'USER')
    .at(-1)
  if (!user) throw new Error('the Dockerfile sets no USER: the image would run as root')
  const name = user.args.trim()
  const numeric = /^(\d+)(?::(\d+))?$/.exec(name)
  if (numeric) return { uid: Number(numeric[1]), gid: Number(numeric[2] ?? numeric[1]) }
  const known = IMAGE_USERS[name]
  if (!known) throw new Error(`USER ${name}: uid unknown to this test`)
  return known
}

// ENV of the final stage, ARG defaults substituted (`ENV A=1 \ B=${ARG}`)
export function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  const args: Record<string, string> = {}
  for (const { keyword, args: text } of dockerInstructions(DOCKERFILE)) {
    if (keyword === 'FROM') for (const k of Object.keys(env)) delete env[k]
    if (keyword === 'ARG') {
      const [k, v = ''] = text.trim().split('=')
      args[k!] = JSON.parse(v === '' ? '""' : v.startsWith('"') ? v : JSON.stringify(v)) as string
    }
    if (keyword !== 'ENV') continue
    for (const m of text.matchAll(/(\w+)=("[^"]*"|\S*)/g)) {
      const raw = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!
      env[m[1]!] = raw.replace(/\$\{(\w+)\}/g, (_, a: string) => args[a] ?? env[a] ?? '')
    }
  }
  return env
}

export const IMAGE_CMD = dockerCmd(DOCKERFILE)
export const IMAGE_WORKDIR = dockerWorkdir(DOCKERFILE)

export interface Mount {
  host: string
  path: string
  readOnly?: boolean
}

// bwrap's arguments for `command` run in the image with `env` (the container's, over the image's) and
// `mounts` (the pod's volumes). `node` is found on PATH, where the node image has it.
export function sandboxArgs(command: string[], env: Record<string, string>, mounts: Mount[]): string[] {
  const { uid, gid } = imageUser()
  const args = [
    '--ro-bind',
    '/usr',
    '/usr',
    // the few files of /etc a Node process reads (not the whole folder: a pod's Secret volume is mounted
    // under /etc, and a mount point inside a bind of the host's /etc would be made on the host)
    ...['hosts', 'resolv.conf', 'nsswitch.conf', 'passwd', 'group', 'ssl'].flatMap((f) => [
      '--ro-bind-try',
      `/etc/${f}`,
      `/etc/${f}`,
    ]),
    '--symlink',
    'usr/lib',
    '/lib',
    '--symlink',
    'usr/lib64',
    '/lib64',
    '--symlink',
    'usr/bin',
    '/bin',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--dir',
    '/tmp',
    '--ro-bind',
    realpathSync(process.execPath),
    '/opt/node/bin/node',
  ]
  for (const copy of contextCopies(FINAL_STAGE)) {
    for (const source of copy.sources) {
      const target =
        copy.sources.length > 1 || copy.dest.endsWith('/')
          ? posix.join(copy.dest, posix.basename(source))
          : copy.dest
      args.push('--ro-bind', join(ROOT, source), target)
    }
  }
  // `npm ci --omit=dev` in the image; here the checkout's (a superset), at the image's path
  args.push('--ro-bind', join(ROOT, 'node_modules'), posix.join(IMAGE_WORKDIR, 'node_modules'))
  for (const m of mounts) args.push(m.readOnly ? '--ro-bind' : '--bind', m.host, m.path)
  args.push(
    '--remount-ro',
    '/',
    '--chdir',
    IMAGE_WORKDIR,
    '--unshare-user',
    '--uid',
    String(uid),
    '--gid',
    String(gid),
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--clearenv',
  )
  const all = { PATH: '/opt/node/bin:/usr/local/bin:/usr/bin:/bin', ...imageEnv(), ...env }
  for (const [k, v] of Object.entries(all)) args.push('--setenv', k, v)
  return [...args, '--', ...command]
}
