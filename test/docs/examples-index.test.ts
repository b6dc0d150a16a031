import { describe, expect, it } from 'vitest'
import { expectedPages, pageWithExamples } from '../../scripts/docs-examples.ts'
import { opNamed } from '../helpers/ops.ts'

// Each op family's page of docs/examples/ lists its ops' worked examples (OpDescriptor.examples), written
// there by `node scripts/docs-examples.ts`: a page that does not show what the descriptors say is stale.
describe('docs/examples/: the ops’ examples', () => {
  it('every family page shows its ops’ examples as the descriptors declare them', () => {
    const stale = expectedPages()
      .filter((page) => page.current !== page.text)
      .map((page) => page.path.pathname.replace(/^.*\/docs\//, 'docs/'))
    expect(stale, 'run node scripts/docs-examples.ts').toEqual([])
  })

  it('writes a curl command and its answer per example, between the markers, keeping the rest', () => {
    const page = pageWithExamples('# Time examples\n\nProse.\n', [opNamed('time.timestamp')], 'Time')
    expect(page.startsWith('# Time examples\n\n<!-- examples:')).toBe(true)
    expect(page).toContain(
      'curl --cacert .data/tls/cert.pem https://localhost:8443/v1/time/timestamp -H "Authorization: Bearer $ANVIL_KEY" -H \'Content-Type: application/json\' -d \'{"value":"1710055800123"',
    )
    expect(page.endsWith('Prose.\n')).toBe(true)
    // written again, the page stays the same
    expect(pageWithExamples(page, [opNamed('time.timestamp')], 'Time')).toBe(page)
  })
})
