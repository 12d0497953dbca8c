/// <reference lib="dom" />
/**
 * Viewer navigation in headless Chromium: request addresses use the label the page shows (`request 2.1` lives at
 * `#/session/ID/request/2.1`), and a session, request or address that does not exist is a page that says so with
 * links to what does, on the served viewer and in the `--html` file alike.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { loadAssets, startViewServer, writeSessionHtml } from '../src/index.js'
import { openSource } from './app.js'
import { closeBrowser, launchBrowser, viewerPage, textOnce } from './browser.js'
import { makeViewFixture, type ViewFixture } from './fixture.js'
import { serveView, type ServedView } from './serve.js'

let fixture: ViewFixture
let browser: Browser
let page: Page
let errors: string[]
let server: ServedView
let file: string

beforeAll(async () => {
  fixture = await makeViewFixture()
  browser = await launchBrowser()
  ;({ page, errors } = await viewerPage(browser))
  server = await serveView(fixture.app)
  file = join(fixture.app.dir, 'navigation.html')
  const opened = await openSource(fixture.app)
  try {
    await writeSessionHtml(opened.source, fixture.id, file)
  } finally {
    await opened.close()
  }
})

afterAll(async () => {
  await page.goto('about:blank')
  await server.close()
  await closeBrowser(browser)
})

afterEach(() => {
  expect(errors.splice(0)).toEqual([])
})

/** The not-found page's heading, text and links (`[text, href]`). */
async function notFound(): Promise<{ title: string; text: string; links: [string, string][] }> {
  await page.waitForSelector('[data-not-found]')
  return page.$eval('[data-not-found]', (main) => ({
    title: main.querySelector('h1')?.textContent ?? '',
    text: main.textContent ?? '',
    links: Array.from(main.querySelectorAll('a')).map(
      (a) => [a.textContent ?? '', a.getAttribute('href') ?? ''] as [string, string],
    ),
  }))
}

/** Both ways to open the viewer: the server, and the file from disk. */
const bases = () => [
  ['served', server.url],
  ['--html file', pathToFileURL(file).href],
]

describe('viewer navigation', () => {
  it('request links and addresses use the request label the page shows', async () => {
    for (const [, base] of bases()) {
      await page.goto(`${base}#/session/${fixture.id}`)
      await page.waitForSelector('[data-step="2.1"]')
      const hrefs = await page.$$eval('tr[data-request] a', (links) => links.map((a) => a.getAttribute('href')))
      expect(hrefs).toEqual(['1.1', '1.2', '2.1'].map((label) => `#/session/${fixture.id}/request/${label}`))
      await page.goto(`${base}#/session/${fixture.id}/request/1.2`)
      const text = await textOnce(page, 'main h1')
      expect(await page.$eval('main h1', (h) => h.textContent)).toMatch(/^Request 1\.2 /)
      expect(text).toContain('Compared with request 1.1')
      // the neighbours link by label too
      expect(await page.$$eval('nav.neighbours a', (links) => links.map((a) => a.getAttribute('href')))).toEqual([
        `#/session/${fixture.id}/request/1.1`,
        `#/session/${fixture.id}/request/2.1`,
      ])
    }
  })

  it('an unknown request is a page naming the requests there are, with links to them and to the session', async () => {
    for (const [where, base] of bases()) {
      await page.goto(`${base}#/session/${fixture.id}/request/9.9`)
      const shown = await notFound()
      expect(shown.title, where).toBe(`Session ${fixture.id} has no request 9.9`)
      expect(shown.text).toContain('Its requests: 1.1, 1.2, 2.1.')
      expect(shown.links.slice(0, 4)).toEqual([
        [`session ${fixture.id}`, `#/session/${fixture.id}`],
        ['request 1.1', `#/session/${fixture.id}/request/1.1`],
        ['request 1.2', `#/session/${fixture.id}/request/1.2`],
        ['request 2.1', `#/session/${fixture.id}/request/2.1`],
      ])
      await page.click('[data-not-found] a[href$="/request/2.1"]')
      await page.waitForSelector('.prefix-break')
    }
  })

  it('an unknown session is a page with links back, in a file to the session it holds', async () => {
    await page.goto(`${server.url}#/session/nope`)
    const served = await notFound()
    // the page asked the API for the session (and its live stream's baseline): 404s the console reports
    expect(new Set(errors.splice(0))).toEqual(
      new Set(['console: Failed to load resource: the server responded with a status of 404 (Not Found)']),
    )
    expect(served.title).toBe('Cannot show session nope')
    expect(served.text).toContain('session "nope" not found')
    expect(served.links).toEqual([['all sessions', '#/']])

    await page.goto(`${pathToFileURL(file).href}#/session/nope`)
    const saved = await notFound()
    expect(saved.text).toContain(`holds session ${fixture.id} only`)
    expect(saved.links).toEqual([
      ['the sessions in this file', '#/'],
      [`session ${fixture.id}`, `#/session/${fixture.id}`],
    ])
    await page.click(`[data-not-found] a[href="#/session/${fixture.id}"]`)
    await page.waitForSelector('[data-turn="2"]')
  })

  it('an address the viewer has no page at is a 404 page with links, not the sessions list', async () => {
    for (const [where, base] of bases()) {
      await page.goto(`${base}#/bogus/route`)
      const shown = await notFound()
      expect(shown.title, where).toBe('No such page')
      expect(shown.text).toContain('The viewer has no page at #/bogus/route.')
      expect(shown.links[0]![1]).toBe('#/')
      expect(await page.$('table.sessions')).toBeNull()
    }
    // `bridle view`'s server answers a browser's unknown path with a 404 page that links to the sessions
    const opened = await openSource(fixture.app)
    const own = await startViewServer({ source: opened.source, assets: await loadAssets(), host: '127.0.0.1', port: 0 })
    try {
      const response = await page.goto(`${own.url}no/such/page`)
      expect(response?.status()).toBe(404)
      const shown = await notFound()
      expect(shown.text).toContain('The viewer has no page at /no/such/page.')
      expect(shown.links).toEqual([['all sessions', '/']])
      await page.click('[data-not-found] a')
      await page.waitForSelector('table.sessions')
    } finally {
      await page.goto('about:blank')
      await own.close()
      await opened.close()
    }
    expect(errors.splice(0)).toEqual([
      'console: Failed to load resource: the server responded with a status of 404 (Not Found)',
    ])
  })

  it('an older link by the seq of the request digest still opens that request', async () => {
    await page.goto(`${server.url}#/session/${fixture.id}`)
    await page.waitForSelector('tr[data-request="2.1"]')
    const seq = await page.$eval('tr[data-request="2.1"]', (tr) => tr.getAttribute('data-seq'))
    await page.goto(`${server.url}#/session/${fixture.id}/request/${seq}`)
    await page.waitForSelector('.prefix-break')
    expect(await page.$eval('main h1', (h) => h.textContent)).toMatch(/^Request 2\.1 /)
  })
})
