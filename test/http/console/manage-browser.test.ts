import { mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { describeBrowser, launchChromium, widthProblems } from './browser-kit.ts'

// The console's settings in a real, headless Chromium: the docs link and back, the workspace switcher,
// renaming and deleting environments, projects and workspaces, the key list above its form, the usage
// page's errors and latency per endpoint, a new password and a deleted account. Each page at 1280 and at
// 375 px: nothing overflows at 375, and screenshots of both go to SHOTS (looked at by whoever changes a page).
const SHOTS = join(tmpdir(), 'anvil-console-screens')
const PASSWORD = 'a long enough passphrase'
const WIDTHS = [1280, 375] as const

describeBrowser('console settings in a browser', () => {
  let t: TestApp
  let browser: Browser
  const problems: string[] = []

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true })
    t = await startTestApp({ listen: true })
    browser = await launchChromium()
  }, 60_000)
  beforeEach(() => {
    problems.length = 0
  })
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  async function open(width: number): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width, height: 900 } })
    const page = await context.newPage()
    page.on('console', (msg) => {
      // a refusal the page shows (400, 409) is logged by the browser as a failed resource: not a problem;
      // nor is /docs asking for a favicon the gateway does not serve (the reference page is not ours)
      const url = msg.location().url
      if (msg.type() !== 'error' || /status of (400|409)/.test(msg.text()) || url.endsWith('/favicon.ico'))
        return
      problems.push(`${msg.text()} (${url})`)
    })
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
    return { context, page }
  }

  async function signUp(page: Page, email: string, workspace: string): Promise<string> {
    await page.goto(`${t.url}/console/sign-up`)
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByLabel('Workspace name').fill(workspace)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.waitForURL(/\/console\/workspaces\/ws_[0-9A-Za-z]+$/)
    return page.url()
  }

  // A screenshot of the page (and at 375 px the check that nothing is wider than the screen).
  async function look(page: Page, name: string, width: number) {
    await page.screenshot({ path: join(SHOTS, `${width}-${name}.png`), fullPage: true })
    if (width === 375) expect(await widthProblems(page), name).toEqual([])
  }

  async function createKey(page: Page, base: string, name: string): Promise<string> {
    await page.goto(`${base}/keys`)
    await page.getByLabel('Name (optional)').fill(name)
    await page.getByRole('button', { name: 'Create key' }).click()
    const dialog = page.getByRole('dialog', { name: 'Your new API key' })
    const key = await dialog.getByRole('textbox', { name: 'API key' }).inputValue()
    await dialog.getByRole('button', { name: 'Done, I have stored it' }).click()
    await page.getByRole('rowheader', { name }).waitFor()
    return key
  }

  for (const width of WIDTHS) {
    it(`${width} px: docs and back, the switcher, rename and delete (refused while keys are live)`, async () => {
      const { context, page } = await open(width)
      const first = await signUp(page, `manage-${width}@example.com`, 'First Co')
      // the header links to /docs; the reference links back to the console
      await page.getByRole('link', { name: 'API docs' }).click()
      await page.waitForURL(/\/docs\/?$/)
      const back = page.getByRole('link', { name: 'developer console' }).first()
      await back.waitFor({ timeout: 30_000 })
      await back.click()
      await page.waitForURL(/\/console\/workspaces$/)

      // a second workspace, then the switcher: from the first's API keys page to the second's
      await page.getByLabel('Name').fill('Second Co')
      await page.getByRole('button', { name: 'Create workspace' }).click()
      await page.waitForURL(/\/console\/workspaces\/ws_[0-9A-Za-z]+$/)
      const second = page.url()
      await page.goto(`${first}/keys`)
      const switcher = page.locator('details.switcher')
      await switcher.locator('summary').click()
      await look(page, 'switcher-open', width)
      await page.keyboard.press('Escape')
      expect(await switcher.evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(false)
      await switcher.locator('summary').click()
      await switcher.getByRole('link', { name: /Second Co/ }).click()
      await page.waitForURL(`${second}/keys`)
      expect(await page.locator('details.switcher summary strong').textContent()).toBe('Second Co')

      // rename the second workspace on its settings page
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Settings' }).click()
      await page.getByLabel('Name', { exact: true }).fill('Second & Co')
      await page.getByRole('button', { name: 'Save name' }).click()
      await expect
        .poll(() => page.locator('details.switcher summary strong').textContent())
        .toBe('Second & Co')
      await look(page, 'settings', width)

      // in the first: a key in production; deleting the environment is refused, naming it
      const key = await createKey(page, first, 'checkout')
      await page.goto(first)
      const production = page.getByRole('row', { name: /production/ })
      await production.getByRole('button', { name: 'Rename environment production' }).click()
      const rename = page.getByRole('dialog', { name: /Rename environment production/ })
      expect(await rename.getByLabel('New name').inputValue()).toBe('production')
      await rename.getByLabel('New name').fill('live')
      await look(page, 'rename-dialog', width)
      await rename.getByRole('button', { name: 'Rename' }).click()
      await page.getByRole('rowheader', { name: 'live' }).waitFor()
      await page
        .getByRole('row', { name: /live/ })
        .getByRole('button', { name: 'Delete environment live' })
        .click()
      const confirm = page.getByRole('dialog', { name: 'Delete environment live?' })
      expect(await page.evaluate('document.activeElement.textContent')).toBe('Cancel')
      await confirm.getByRole('button', { name: 'Delete', exact: true }).click()
      await expect
        .poll(() => confirm.getByRole('alert').textContent())
        .toMatch(/has 1 live key, anvil_live_\w+… \(checkout\): revoke it first/)
      await look(page, 'delete-refused', width)
      await confirm.getByRole('button', { name: 'Cancel' }).click()

      // revoked, the environment goes, then the project
      await page.goto(`${first}/keys`)
      await page
        .getByRole('row', { name: /checkout/ })
        .getByRole('button', { name: 'Revoke' })
        .click()
      await page
        .getByRole('dialog', { name: 'Revoke this key?' })
        .getByRole('button', { name: 'Revoke key' })
        .click()
      await page
        .getByRole('row', { name: /checkout/ })
        .getByText('Revoked')
        .waitFor()
      await page.goto(first)
      await page
        .getByRole('row', { name: /live/ })
        .getByRole('button', { name: 'Delete environment live' })
        .click()
      await page
        .getByRole('dialog', { name: 'Delete environment live?' })
        .getByRole('button', { name: 'Delete', exact: true })
        .click()
      await page.getByText('No environments yet.').waitFor()
      await page.getByRole('button', { name: 'Rename project default' }).click()
      await page
        .getByRole('dialog', { name: /Rename project default/ })
        .getByLabel('New name')
        .fill('legacy')
      await page
        .getByRole('dialog', { name: /Rename project default/ })
        .getByRole('button', { name: 'Rename' })
        .click()
      await page.getByRole('heading', { name: 'legacy' }).waitFor()
      await look(page, 'projects', width)
      await page.getByRole('button', { name: 'Delete project legacy' }).click()
      await page
        .getByRole('dialog', { name: 'Delete project legacy?' })
        .getByRole('button', { name: 'Delete', exact: true })
        .click()
      await page.getByText('No projects yet').waitFor()
      // the revoked key went with its environment; it is refused as before
      const call = await t.app.inject({
        method: 'POST',
        url: '/v1/hash/sha256',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: '{"input":"x"}',
      })
      expect(call.json().error.code).toBe('ERR_INVALID_API_KEY')

      // the first workspace, deleted on its settings page once its name is typed exactly
      await page.goto(`${first}/settings`)
      await page.getByRole('button', { name: 'Delete workspace' }).click()
      const dialog = page.getByRole('dialog', { name: 'Delete First Co?' })
      await dialog.getByLabel(/Type the workspace name/).fill('first co')
      await dialog.getByRole('button', { name: 'Delete workspace' }).click()
      await dialog.getByText('The name does not match. Type First Co exactly.').waitFor()
      await look(page, 'delete-workspace-dialog', width)
      await dialog.getByLabel(/Type the workspace name/).fill('First Co')
      await dialog.getByRole('button', { name: 'Delete workspace' }).click()
      await page.waitForURL(/\/console\/workspaces$/)
      expect(await page.getByRole('heading', { level: 2 }).allTextContents()).toEqual([
        'Second & Co',
        'New workspace',
      ])
      expect(problems).toEqual([])
      await context.close()
    }, 120_000)

    it(`${width} px: keys above the create form, jobs only on a paid plan; usage with errors and latency per endpoint`, async () => {
      const { context, page } = await open(width)
      const base = await signUp(page, `usage-${width}@example.com`, 'Usage Co')
      await page.goto(`${base}/keys`)
      // the list comes first, then the form; a free plan is not offered the jobs family
      const headings = await page.getByRole('heading', { level: 2 }).allTextContents()
      expect(headings.indexOf('Keys')).toBeLessThan(headings.indexOf('Create a key'))
      expect(await page.getByRole('checkbox', { name: 'jobs' }).count()).toBe(0)
      expect(await page.getByTestId('paid-families').textContent()).toContain('jobs: paid plans only')
      const key = await createKey(page, base, 'usage')
      await look(page, 'keys', width)
      const workspaceId = base.split('/').at(-1)!
      await t.runtime.store.updateWorkspace(workspaceId, { plan: 'pro' })
      await page.reload()
      expect(await page.getByRole('checkbox', { name: 'jobs' }).count()).toBe(1)

      const call = (url: string, payload: string) =>
        t.app.inject({
          method: 'POST',
          url,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          payload,
        })
      for (let i = 0; i < 3; i++)
        expect((await call('/v1/hash/sha256', '{"input":"x"}')).statusCode).toBe(200)
      expect((await call('/v1/hash/sha256', '{"inptu":"x"}')).statusCode).toBe(400)
      expect((await call('/v1/base64/encode', '{"input":"x"}')).statusCode).toBe(200)
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Usage' }).click()
      expect(await page.getByTestId('answers-ok').textContent()).toBe('4')
      expect(await page.getByTestId('answers-4xx').textContent()).toBe('1')
      expect(await page.getByTestId('answers-5xx').textContent()).toBe('0')
      expect(await page.getByTestId('error-rate').textContent()).toBe('20.0%')
      expect(await page.getByTestId('latency-p50').textContent()).toMatch(/^≤ \d+ (ms|s)$/)
      const hash = page.locator('tr[data-endpoint="POST /v1/hash/{algorithm}"]')
      expect((await hash.locator('td').allTextContents()).slice(0, 5)).toEqual(['4', '3', '1', '0', '25.0%'])
      expect(await page.locator('tr[data-endpoint="POST /v1/base64/encode"] td').first().textContent()).toBe(
        '1',
      )
      await look(page, 'usage', width)
      expect(problems).toEqual([])
      await context.close()
    }, 120_000)

    it(`${width} px: a new password signs the other browser out; the account is deleted with its workspace`, async () => {
      const { context, page } = await open(width)
      const email = `account-${width}@example.com`
      const base = await signUp(page, email, 'Account Co')
      const other = await open(width)
      await other.page.goto(`${t.url}/console/sign-in`)
      await other.page.getByLabel('Email').fill(email)
      await other.page.getByLabel('Password').fill(PASSWORD)
      await other.page.getByRole('button', { name: 'Sign in' }).click()
      await other.page.waitForURL(/\/console\/workspaces$/)

      await page.getByRole('link', { name: email }).click()
      await page.waitForURL(/\/console\/account$/)
      await page.getByLabel('Current password').fill('not my password')
      await page.getByLabel('New password', { exact: true }).fill('a brand new passphrase')
      await page.getByLabel('New password again').fill('a brand new passphrase!')
      await page.getByRole('button', { name: 'Change password' }).click()
      await page.getByText('The two new passwords are not the same.').waitFor()
      await page.getByLabel('New password again').fill('a brand new passphrase')
      await page.getByRole('button', { name: 'Change password' }).click()
      await page.getByText('is not the password of this account').waitFor()
      await look(page, 'password-wrong', width)
      await page.getByLabel('Current password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Change password' }).click()
      await page.waitForURL(/\/console\/account\?changed=password$/)
      await page.getByText('Your password was changed. Other browsers were signed out.').waitFor()
      await look(page, 'account', width)
      // the other browser is signed out at its next step
      await other.page.goto(`${t.url}/console/workspaces`)
      await other.page.waitForURL(/\/console\/sign-in/)
      await other.context.close()

      // with a live key the account stays; revoked, it goes with its workspace
      await createKey(page, base, 'last')
      await page.goto(`${t.url}/console/account`)
      await page.getByRole('button', { name: 'Delete account' }).click()
      const dialog = page.getByRole('dialog', { name: 'Delete your account?' })
      await dialog.getByLabel('Your password').fill('a brand new passphrase')
      await dialog.getByRole('button', { name: 'Delete account' }).click()
      await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/Account Co\) has 1 live key/)
      await look(page, 'delete-account-refused', width)
      await page.goto(`${base}/keys`)
      await page.getByRole('row', { name: /last/ }).getByRole('button', { name: 'Revoke' }).click()
      await page
        .getByRole('dialog', { name: 'Revoke this key?' })
        .getByRole('button', { name: 'Revoke key' })
        .click()
      await page.getByRole('row', { name: /last/ }).getByText('Revoked').waitFor()
      await page.goto(`${t.url}/console/account`)
      await page.getByRole('button', { name: 'Delete account' }).click()
      await dialog.getByLabel('Your password').fill('a brand new passphrase')
      await dialog.getByRole('button', { name: 'Delete account' }).click()
      await page.waitForURL(/\/console\/sign-up$/)
      expect((await context.cookies()).find((c) => c.name === 'anvil_session')).toBeUndefined()
      expect(await t.runtime.store.getWorkspace(base.split('/').at(-1)!)).toBeUndefined()
      expect(problems).toEqual([])
      await context.close()
    }, 120_000)
  }
})
