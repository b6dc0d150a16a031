import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CATALOG } from '../../../src/ops/catalog.ts'
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
      // a failed load (the favicon's 404 was one) is an error in the page's console
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text())
      })
      await page.goto(`${t.url}/docs/`)
      await expect
        .poll(() => page.getByText('API (/v1, API key)').count(), { timeout: 30_000 })
        .toBeGreaterThan(0)
      await page.getByText('Hash', { exact: true }).first().click()
      await expect.poll(() => page.getByText('List the hash algorithms').count()).toBeGreaterThan(0)
      // a collapsed group opens on its operations
      await page.getByText('Jobs', { exact: true }).first().click()
      await expect.poll(() => page.getByText('Run an operation as an async job').count()).toBeGreaterThan(0)
      await page.getByText('Meta', { exact: true }).first().click()
      await expect.poll(() => page.getByText('Liveness: the process is up').count()).toBeGreaterThan(0)
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
      // the families in the catalog's order under the API's heading; the console's cookie-session API
      // and the service's endpoints under headings of their own, after it (issue 43)
      const sidebar = await page.locator('body').innerText()
      const at = (s: string) => sidebar.indexOf(s)
      const order = ['API (/v1, API key)', ...CATALOG.families.map((f) => f.tag)]
      for (const [a, b] of order.slice(1).map((b, i) => [order[i]!, b] as const))
        expect(at(a), `${a} before ${b}`).toBeLessThan(at(b))
      expect(at('Jobs')).toBeLessThan(at('Service'))
      expect(at('Service')).toBeLessThan(at('Console API (session cookie)'))
      expect(outside).toEqual([])
      expect(errors).toEqual([])
      await context.close()
      // the site icon decodes (in a context of its own: Playwright's request routing above spoils the
      // decoding of an image/x-icon answer)
      const plain = await browser.newContext({ ignoreHTTPSErrors: true })
      const iconPage = await plain.newPage()
      await iconPage.goto(`${t.url}/`)
      const icon = await iconPage.evaluate(async () => {
        // the page's Image (this file is type-checked without the DOM's types)
        type Picture = { src: string; decode(): Promise<void>; naturalWidth: number; naturalHeight: number }
        const image = new (globalThis as unknown as { Image: new () => Picture }).Image()
        image.src = '/favicon.ico'
        await image.decode()
        return [image.naturalWidth, image.naturalHeight]
      })
      expect(icon).toEqual([32, 32])
      await plain.close()
    }, 90_000)

    // The client sends Accept: application/json, application/octet-stream (JSON first): negotiation
    // answers the documented JSON, where a check for "octet-stream anywhere" answered bytes ("Binary file")
    it('"Test Request" on hash shows the JSON answer its example documents', async () => {
      const context = await browser.newContext({
        ignoreHTTPSErrors: true,
        viewport: { width: 1400, height: 1000 },
      })
      const page = await context.newPage()
      const accepts: string[] = []
      const urls: string[] = []
      page.on('request', (r) => {
        if (r.method() !== 'POST' || !r.url().includes('/v1/hash/')) return
        accepts.push(r.headers().accept ?? '')
        urls.push(r.url())
      })
      await page.goto(`${t.url}/docs/#tag/hash/POST/v1/hash/{algorithm}`)
      const open = page.getByRole('button', { name: /Test Request\s*\(post \/v1\/hash\/\{algorithm\}\)/ })
      await expect.poll(() => open.count(), { timeout: 30_000 }).toBeGreaterThan(0)
      await open.click()
      const client = page.getByRole('dialog', { name: 'API Client' })
      await client.getByRole('textbox', { name: 'Bearer Token' }).fill(t.key)
      await client.getByRole('button', { name: /^Send/ }).first().click()
      await expect.poll(() => client.innerText(), { timeout: 30_000 }).toContain('"digest"')
      const shown = await client.innerText()
      await page.screenshot({ path: `${ARTIFACTS}docs-try-hash.png` })
      expect(accepts.length).toBeGreaterThan(0)
      expect(accepts[0]).toMatch(/application\/json.*application\/octet-stream/)
      expect(shown).toContain('200 OK')
      expect(shown).toContain('"ok": true')
      expect(shown).not.toMatch(/Binary file/i)
      // the raw body's query options are offered unticked: the JSON example is sent without them
      expect(urls[0]).toBe(`${t.url}/v1/hash/sha256`)
      await context.close()
    }, 90_000)
  })
}
