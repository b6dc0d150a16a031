import { readFileSync } from 'node:fs'

const ROOT = new URL('../../', import.meta.url).pathname

// The environment `npm start` gives the gateway before Node starts: package.json's start script sets
// glibc's malloc settings as `NAME=${NAME:-value}` ahead of `node`, because glibc reads them only when a
// process starts (MALLOC_MMAP_THRESHOLD_, GLIBC_TUNABLES: docs/dispatch.md, "Threads and memory").
// Every gateway a bench starts, this tree's or a base tree's, runs with this tree's values, so a figure
// is the shipped configuration's and two trees differ only in their code. As in the script, a value the
// bench's own environment gives wins (`GLIBC_TUNABLES=glibc.malloc.hugetlb=0 npm run bench …` measures
// without huge pages).
export function shippedEnv(own: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const { scripts } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
    scripts: Record<string, string>
  }
  const env = startEnv(scripts.start)
  for (const name of Object.keys(env)) env[name] = own[name] || env[name]!
  return env
}

// `A=${A:-1} B=${B:-x=2} node …` → { env: { A: '1', B: 'x=2' }, command: 'node …' }: the defaults assigned
// before the command, and the command itself (what the image's CMD must equal)
export function splitStart(start: string | undefined): { env: Record<string, string>; command: string } {
  const [, prefix, command] = /^((?:\w+=\$\{\w+:-[^}]*\}\s+)*)(.*)$/s.exec(start ?? '')!
  const env: Record<string, string> = {}
  for (const [, name, same, value] of prefix!.matchAll(/(\w+)=\$\{(\w+):-([^}]*)\}/g))
    if (name === same) env[name!] = value!
  return { env, command: command! }
}

export const startEnv = (start: string | undefined): Record<string, string> => splitStart(start).env
