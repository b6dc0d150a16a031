import { describe, expect, it } from 'vitest'
import { shippedEnv, splitStart, startEnv } from '../../bench/lib/shipped-env.ts'

// Every gateway a bench starts runs with what `npm start` sets before Node starts (bench/lib/processes.ts)
describe('the environment a bench gives its gateways (bench/lib/shipped-env.ts)', () => {
  it("reads npm start's assignments before node, defaults only", () => {
    expect(shippedEnv({})).toEqual({
      MALLOC_MMAP_THRESHOLD_: '131072',
      GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1',
    })
    // as in the script, a value the bench's environment gives wins; an empty one does not
    expect(shippedEnv({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0', MALLOC_MMAP_THRESHOLD_: '' })).toEqual({
      MALLOC_MMAP_THRESHOLD_: '131072',
      GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0',
    })
    expect(startEnv(`A=\${A:-1} B=\${B:-x=2:y=3} node src/main/gateway.ts`)).toEqual({ A: '1', B: 'x=2:y=3' })
    // a default for another variable's name, an assignment after the command, none at all
    expect(startEnv(`A=\${B:-1} node x.ts`)).toEqual({})
    expect(startEnv(`node x.ts A=\${A:-1}`)).toEqual({})
    expect(startEnv('node src/main/gateway.ts')).toEqual({})
    expect(startEnv(undefined)).toEqual({})
    expect(splitStart(`A=\${A:-1} node x.ts`)).toEqual({ env: { A: '1' }, command: 'node x.ts' })
  })
})
