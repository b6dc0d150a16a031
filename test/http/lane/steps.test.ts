import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'

const ROOT = new URL('../../../', import.meta.url).pathname
const read = (path: string) => readFile(`${ROOT}${path}`, 'utf8')

// The lane's steps in the order a request meets them, and the file that marks each with `// <step>:`.
// docs/architecture.md ("A request's path") must list the same steps in this order, each naming its file,
// and src/http/lane/lane.ts must mark its own steps in this order: a step moved, added or dropped in the code
// without the page (or the other way round) fails here.
const STEPS = [
  ['identify', 'src/http/lane/lane.ts'],
  ['cors', 'src/http/lane/lane.ts'],
  ['deadline', 'src/http/lane/lane.ts'],
  ['access', 'src/http/lane/lane.ts'],
  ['decide', 'src/http/lane/lane.ts'],
  ['parse', 'src/http/body/parsers.ts'],
  ['validate', 'src/http/route/zod-compiler.ts'],
  ['idempotency', 'src/http/hooks/idempotency.ts'],
  ['run', 'src/http/route/define-route.ts'],
  ['answer', 'src/http/answer/answer.ts'],
  ['record', 'src/http/lane/lane.ts'],
  ['settle', 'src/http/lane/lane.ts'],
] as const

async function pageSteps(): Promise<{ step: string; file: string }[]> {
  const page = await read('docs/architecture.md')
  const start = page.indexOf("## A request's path")
  const section = page.slice(start, page.indexOf('\n## ', start))
  return [...section.matchAll(/^\d+\. \*\*([a-z]+)\*\* \(`([^`]+)`/gm)].map((m) => ({
    step: m[1]!,
    file: m[2]!,
  }))
}

describe("the lane's steps: docs/architecture.md, the code and its order agree", () => {
  it('the page lists the steps in order, each with the file that does it', async () => {
    expect(await pageSteps()).toEqual(STEPS.map(([step, file]) => ({ step, file })))
  })

  it('each file marks its step', async () => {
    for (const [step, file] of STEPS) {
      expect(await read(file), `${file} marks // ${step}:`).toMatch(new RegExp(`// ${step}: `))
    }
  })

  it("lane.ts runs its steps in the page's order", async () => {
    const lane = await read('src/http/lane/lane.ts')
    const own = STEPS.filter(([, file]) => file === 'src/http/lane/lane.ts').map(([step]) => step)
    const marked = [...lane.matchAll(/\/\/ ([a-z]+): /g)]
      .map((m) => m[1]!)
      .filter((s) => own.includes(s as never))
    expect(marked).toEqual(own)
  })
})
