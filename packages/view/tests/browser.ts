/// <reference lib="dom" />
import chromium from '@sparticuz/chromium'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'

// Real headless Chromium from the npm registry (@sparticuz/chromium ships the binary inside the package), driven by
// puppeteer-core. Flags keep it off the network: this machine's closed network refuses background connections.
const QUIET = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
]

/** Starts headless Chromium. */
export async function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: await chromium.executablePath(),
    args: [...chromium.args, '--no-sandbox', ...QUIET],
    headless: true,
  })
}

/** A new page at the width the README's screenshots use, and the list its errors are collected in (`pageErrors`). */
export async function viewerPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage()
  const errors = pageErrors(page)
  await page.setViewport({ width: 1100, height: 900 })
  return { page, errors }
}

/** Closes the browser, and makes sure no Chromium outlives the tests even if close hangs on a wedged browser. */
export async function closeBrowser(browser: Browser | undefined): Promise<void> {
  const child = browser?.process()
  await Promise.race([browser?.close(), new Promise((resolve) => setTimeout(resolve, 10_000))])
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
}

/**
 * Collects what the page reports as errors: console errors (a refused resource or a Content-Security-Policy
 * violation shows here), uncaught exceptions, and requests that failed.
 */
export function pageErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`)
  })
  page.on('pageerror', (error) => errors.push(`exception: ${error instanceof Error ? error.message : String(error)}`))
  page.on('requestfailed', (request) => {
    // an event stream the page closes when it navigates is not a failure of the page
    if (!request.url().includes('/api/events')) errors.push(`request failed: ${request.url()}`)
  })
  return errors
}

/** The visible text of the page once `selector` is there. */
export async function textOnce(page: Page, selector: string): Promise<string> {
  await page.waitForSelector(selector)
  return page.evaluate(() => document.body.textContent)
}
