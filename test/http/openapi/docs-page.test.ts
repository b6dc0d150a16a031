import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

// /docs in a real, headless Chromium: the reference renders every operation from the packaged renderer,
// offers none of the hosted-service buttons (Ask AI, Generate MCP, Share, Deploy), presets the API key
// scheme, and not one request leaves the machine.
const CHROMIUM = '/usr/bin/chromium'
const ARTIFACTS = new URL('../../artifacts/docs/', import.meta.url).pathname
const haveChromium = existsSync(CHROMIUM)

if (!haveChromium && process.env.CI === 'true') {
  describe('/docs in a browser', () => {
    it('needs Debian chromium at /usr/bin/chromium (apt-get install chromium)', () => {
      throw new Error(`${CHROMIUM} is missing: CI must install the chromium package (see .ci/run)`)
    })
  })
} else if (!haveChromium) {
  console.warn(`skipping the /docs browser test: ${CHROMIUM} is not installed (apt-get install chromium)`)
  describe.skip('/docs in a browser', () => {
    it('renders', () => {})
  })
} else {
  describe('/docs in a browser', () => {
    let t: TestApp
    let browser: Browser
    beforeAll(async () => {
      await mkdir(ARTIFACTS, { recursive: true })
      t = await startTestApp({ listen: true })
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: [
          '--no-sandbox',
          '--disable-background-networking',
          '--disable-gpu',
          '--disable-component-update',
        ],
      })
    }, 60_000)
    afterAll(async () => {
      await browser?.close()
      await t?.close()
    })

    it('renders the operations, offline, without hosted-service buttons, the API key scheme preset', async () => {
      const context = await browser.newContext({
        ignoreHTTPSErrors: true,
        viewport: { width: 1400, height: 1000 },
      })
      const origin = new URL(t.url).origin
      const outside: string[] = []
      // every request is seen here: anything not for this gateway is recorded and never sent
      await context.route('**/*', (route) => {
        const url = route.request().url()
        if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:'))
          return route.continue()
        outside.push(url)
        return route.abort()
      })
      const page = await context.newPage()
      const errors: string[] = []
      page.on('pageerror', (err) => errors.push(err.message))
      await page.goto(`${t.url}/docs/`)
      await expect
        .poll(() => page.getByText('Liveness: the process is up').count(), { timeout: 30_000 })
        .toBeGreaterThan(0)
      // a collapsed group opens on its operations
      await page.getByText('Jobs', { exact: true }).first().click()
      await expect.poll(() => page.getByText('Run an operation as an async job').count()).toBeGreaterThan(0)
      // "Try it" is set to the API key (Bearer) scheme: a key pasted there is all a request needs
      await expect.poll(() => page.getByText('Selected Auth Type: apiKey').count()).toBeGreaterThan(0)
      // let late scripts (telemetry, fonts, agent) have their chance to call out
      await page.waitForTimeout(1500)
      await page.screenshot({ path: `${ARTIFACTS}docs.png` })
      const text = await page.locator('body').innerText()
      for (const hosted of ['Ask AI', 'Generate MCP', 'Connect MCP', 'Deploy', 'Share', 'Developer Tools']) {
        expect(text, hosted).not.toContain(hosted)
        expect(await page.getByRole('button', { name: hosted }).count(), hosted).toBe(0)
      }
      // the configuration the page was given: the API key scheme is the preferred one
      const html = await (await page.request.get(`${t.url}/docs/`)).text()
      expect(html).toMatch(/"preferredSecurityScheme":\s*"apiKey"/)
      expect(html).toMatch(/"telemetry":\s*false/)
      expect(outside).toEqual([])
      expect(errors).toEqual([])
      await context.close()
    }, 90_000)
  })
}
