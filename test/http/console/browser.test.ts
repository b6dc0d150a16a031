import { createHash } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { h1Request } from '../../helpers/tls-client.ts'
import { describeBrowser, launchChromium, widthProblems } from './browser-kit.ts'

// One journey through the console in a real, headless Chromium (Debian's package; .ci/run installs
// it): sign up, create a project, an environment and a key, copy the key, call the API with it over
// HTTPS, see the call in usage, revoke the key, and see the next call refused.
const ARTIFACTS = new URL('../../artifacts/console/', import.meta.url).pathname

describeBrowser('console in a browser', () => {
  let t: TestApp
  let browser: Browser
  const problems: string[] = []

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true })
    t = await startTestApp({ listen: true })
    browser = await launchChromium()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  async function shot(page: Page, name: string) {
    await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true })
  }

  function callHash(key: string) {
    return h1Request(t.url, {
      method: 'POST',
      path: '/v1/hash/sha256',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"input":"hello"}',
      ca: t.tls!.cert,
    })
  }

  it('sign up → project → environment → key → copy → call → usage → revoke → refused', async () => {
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      viewport: { width: 1280, height: 900 },
    })
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url })
    const page = await context.newPage()
    const nav = page.getByRole('navigation', { name: 'Console' })
    // a CSP violation or a script error shows up here, and fails the journey
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console: ${msg.text()}`)
    })
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))

    // signed out, /console leads to sign-in; from there to sign-up
    await page.goto(`${t.url}/console`)
    expect(new URL(page.url()).pathname).toBe('/console/sign-in')
    await page.getByRole('link', { name: 'Create an account' }).click()
    await page.getByLabel('Email').fill('dev@example.com')
    await page.getByLabel('Password').fill('a long enough passphrase')
    await page.getByLabel('Workspace name').fill('Browser Co')
    await shot(page, '01-sign-up')
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.waitForURL(/\/console\/workspaces\/ws_[0-9A-Za-z]+$/)
    const cookies = await context.cookies()
    const session = cookies.find((c) => c.name === 'anvil_session')!
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/console' })

    await page.getByLabel('Project name').fill('Storefront')
    await page.getByRole('button', { name: 'Create project' }).click()
    await page.getByRole('heading', { name: 'Storefront' }).waitFor()
    await page.getByLabel('New environment in Storefront').fill('production')
    // the new workspace's own project "default" has an environment form too
    await page.getByRole('region', { name: 'Storefront' }).getByLabel('Mode').selectOption('live')
    const storefront = page.getByRole('region', { name: 'Storefront' })
    await storefront.getByRole('button', { name: 'Add environment' }).click()
    await storefront.getByRole('rowheader', { name: 'production' }).waitFor()
    await shot(page, '02-projects')

    await nav.getByRole('link', { name: 'API keys' }).click()
    await page.getByLabel('Environment').selectOption({ label: 'Storefront / production (live)' })
    await page.getByLabel('Name (optional)').fill('checkout service')
    await page.getByRole('checkbox', { name: 'hash' }).check()
    await page.getByRole('button', { name: 'Create key' }).click()
    const dialog = page.getByRole('dialog', { name: 'Your new API key' })
    await dialog.waitFor()
    const shown = await dialog.getByRole('textbox', { name: 'API key' }).inputValue()
    expect(shown).toMatch(/^anvil_live_[0-9A-Za-z]{36}$/)
    expect(await dialog.getByRole('textbox', { name: 'Try it with curl' }).inputValue()).toContain(
      `Bearer ${shown}`,
    )
    await dialog.getByRole('button', { name: 'Copy key' }).click()
    await dialog.getByText('Copied to the clipboard.').waitFor()
    const copied = (await page.evaluate('navigator.clipboard.readText()')) as string
    expect(copied).toBe(shown)
    await shot(page, '03-key-created')
    await dialog.getByRole('button', { name: 'Done, I have stored it' }).click()
    await page.getByRole('rowheader', { name: 'checkout service' }).waitFor()
    // after the dialog the page holds the key's prefix only
    expect(await page.content()).not.toContain(copied)
    expect(await page.getByRole('row', { name: /checkout service/ }).textContent()).toContain('Never')

    const ok = await callHash(copied)
    expect(ok.status).toBe(200)
    expect(ok.json()).toMatchObject({
      ok: true,
      data: { digest: createHash('sha256').update('hello').digest('hex') },
    })

    await nav.getByRole('link', { name: 'Usage' }).click()
    await expect.poll(() => page.getByTestId('requests').textContent()).toBe('1')
    expect(await page.getByTestId('key-requests').textContent()).toBe('1')
    const days = await page.locator('svg.chart rect.bar').count()
    expect(days).toBeGreaterThanOrEqual(28)
    await shot(page, '04-usage')

    await nav.getByRole('link', { name: 'API keys' }).click()
    const row = page.getByRole('row', { name: /checkout service/ })
    expect(await row.textContent()).not.toContain('Never')
    // revoke with the keyboard only: the dialog opens on Cancel, Tab reaches the confirming button
    await row.getByRole('button', { name: 'Revoke' }).focus()
    await page.keyboard.press('Enter')
    const confirm = page.getByRole('dialog', { name: 'Revoke this key?' })
    await confirm.waitFor()
    await shot(page, '05-revoke-confirm')
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Cancel')
    await page.keyboard.press('Tab')
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Revoke key')
    await page.keyboard.press('Enter')
    await page
      .getByRole('row', { name: /checkout service/ })
      .getByText('Revoked')
      .waitFor()
    await shot(page, '06-revoked')

    const refused = await callHash(copied)
    expect(refused.status).toBe(401)
    expect(refused.json()).toMatchObject({ error: { code: 'ERR_INVALID_API_KEY' } })

    // phone width: nothing wider than the screen, pages still usable
    await page.setViewportSize({ width: 375, height: 740 })
    for (const section of ['', '/keys', '/usage']) {
      await page.goto(`${page.url().replace(/\/(keys|usage)$/, '')}${section}`)
      const overflow = await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      )
      expect(overflow, `horizontal overflow on ${section || 'overview'}`).toBeLessThanOrEqual(0)
      await shot(page, `07-phone${section.replace('/', '-') || '-overview'}`)
    }

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/console\/sign-in$/)
    expect((await context.cookies()).find((c) => c.name === 'anvil_session')).toBeUndefined()
    expect(problems).toEqual([])
    await context.close()
  }, 120_000)

  it('at 375 px: tables become cards, every action and the whole new key and curl line fit the screen', async () => {
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      viewport: { width: 375, height: 740 },
      acceptDownloads: true,
    })
    const page = await context.newPage()
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
    await page.goto(`${t.url}/console/sign-up`)
    await page.getByLabel('Email').fill('phone@example.com')
    await page.getByLabel('Password').fill('a long enough passphrase')
    await page.getByLabel('Workspace name').fill('Pocket')
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.waitForURL(/\/console\/workspaces\/ws_[0-9A-Za-z]+$/)
    const workspace = page.url()
    // a new workspace comes with a project and an environment: the first key is one form away
    await page.getByRole('rowheader', { name: 'production' }).waitFor()
    expect(await widthProblems(page), 'overview').toEqual([])

    await page.goto(`${workspace}/keys`)
    const select = page.getByLabel('Environment')
    await select.selectOption({ label: 'default / production (live)' })
    // the chosen environment is readable whole, its mode included
    const fits = (await page.evaluate(`(() => {
        const el = document.getElementById('key-environment')
        const text = el.selectedOptions[0].textContent
        const style = getComputedStyle(el)
        const ctx = document.createElement('canvas').getContext('2d')
        ctx.font = style.fontWeight + ' ' + style.fontSize + ' ' + style.fontFamily
        const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 24
        return { text, width: ctx.measureText(text).width, room }
      })()`)) as { text: string; width: number; room: number }
    expect(fits.text).toBe('default / production (live)')
    expect(fits.width).toBeLessThanOrEqual(fits.room)
    for (const name of ['first', 'second']) {
      await page.getByLabel('Name (optional)').fill(name)
      await page.getByRole('button', { name: 'Create key' }).click()
      const dialog = page.getByRole('dialog', { name: 'Your new API key' })
      await dialog.waitFor()
      // the key and the curl line are shown whole: nothing scrolled out of sight, in either direction
      for (const box of ['API key', 'Try it with curl']) {
        const area = dialog.getByRole('textbox', { name: box })
        const size = await area.evaluate((el) => ({
          sw: el.scrollWidth,
          cw: el.clientWidth,
          sh: el.scrollHeight,
          ch: el.clientHeight,
          left: el.scrollLeft,
        }))
        expect(size.sw, box).toBeLessThanOrEqual(size.cw + 1)
        expect(size.sh, box).toBeLessThanOrEqual(size.ch + 1)
        expect(size.left, box).toBe(0)
      }
      const key = await dialog.getByRole('textbox', { name: 'API key' }).inputValue()
      const curl = await dialog.getByRole('textbox', { name: 'Try it with curl' }).inputValue()
      // what someone on another machine can run: the certificate as a file they download, no server path
      expect(curl).toBe(
        `curl --cacert anvil-cert.pem https://${new URL(t.url).host}/v1/hash/sha256 -H 'Authorization: Bearer ${key}' -H 'Content-Type: application/json' -d '{"input":"hello"}'`,
      )
      if (name === 'first') {
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          dialog.getByRole('link', { name: 'anvil-cert.pem' }).click(),
        ])
        expect(download.suggestedFilename()).toBe('anvil-cert.pem')
        const { readFile } = await import('node:fs/promises')
        expect(await readFile((await download.path())!, 'utf8')).toBe(t.tls!.cert)
        await shot(page, '08-phone-new-key')
      }
      expect(await widthProblems(page), 'new key dialog').toEqual([])
      await dialog.getByRole('button', { name: 'Done, I have stored it' }).click()
      await page.getByRole('rowheader', { name }).waitFor()
    }
    // the key list: one card per key, Rotate and Revoke on screen
    expect(await widthProblems(page), 'keys').toEqual([])
    const row = page.getByRole('row', { name: /second/ })
    for (const action of ['Rotate', 'Revoke'])
      await expect.poll(() => row.getByRole('button', { name: action }).isVisible()).toBe(true)
    await shot(page, '08-phone-keys')
    await page.goto(`${workspace}/usage`)
    expect(await widthProblems(page), 'usage').toEqual([])
    await shot(page, '08-phone-usage')
    expect(problems).toEqual([])
    await context.close()
  }, 120_000)
})
