import { existsSync } from 'node:fs'
import { type Browser, chromium, type Page } from 'playwright-core'
import { describe, it } from 'vitest'

// What the console's browser tests share: Debian's Chromium (.ci/run installs it; never a downloaded
// browser), launched headless with the flags below, and a check of what overflows at a width.
export const CHROMIUM = '/usr/bin/chromium'

// describe() when Chromium is installed; under CI=true its absence fails loudly, elsewhere it skips.
export function describeBrowser(name: string, body: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, body)
    return
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('needs Debian chromium at /usr/bin/chromium (apt-get install chromium)', () => {
        throw new Error(`${CHROMIUM} is missing: CI must install the chromium package (see .ci/run)`)
      })
    })
    return
  }
  console.warn(`skipping "${name}": ${CHROMIUM} is not installed (apt-get install chromium)`)
  describe.skip(name, () => {
    it('journey', () => {})
  })
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-gpu',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
}

// What overflows its box at this width: every element whose content is wider than it (its scrollWidth
// past its clientWidth), and every control a person cannot reach without scrolling sideways. Elements
// kept out of sight on purpose (visually hidden: a 1 px box) and those not laid out are not looked at.
// (a script run in the page: this project's TypeScript has no DOM types)
const WIDTH_PROBLEMS = `(() => {
  const out = []
  const viewport = document.documentElement.clientWidth
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().replace(/\\s+/g, '.') : '')
  const hidden = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const r = e.getBoundingClientRect()
      if (r.width <= 1 || r.height <= 1) return true
    }
    return false
  }
  for (const el of document.querySelectorAll('body *')) {
    if (!(el instanceof HTMLElement) || el.clientWidth === 0 || hidden(el)) continue
    if (el.scrollWidth > el.clientWidth + 1)
      out.push(name(el) + ': content ' + el.scrollWidth + 'px wide in a ' + el.clientWidth + 'px box')
  }
  for (const el of document.querySelectorAll('button, a, select, input, textarea')) {
    if (hidden(el)) continue
    const r = el.getBoundingClientRect()
    // moved wholly off the left edge until it has focus (the skip link): not a place to scroll to
    if (r.right < 0) continue
    if (r.left < -0.5 || r.right > viewport + 0.5)
      out.push(name(el) + ' "' + (el.textContent || '').trim().slice(0, 30) + '": ' + r.left + '-' + r.right + 'px, screen ' + viewport + 'px')
  }
  return out
})()`

export function widthProblems(page: Page): Promise<string[]> {
  return page.evaluate(WIDTH_PROBLEMS) as Promise<string[]>
}
