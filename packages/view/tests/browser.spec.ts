/// <reference lib="dom" />
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { closeBrowser, launchBrowser, viewerPage, textOnce as textOnceOn } from './browser.js'
import { writeSessionHtml } from '../src/index.js'
import { ask, openSource } from './app.js'
import { makeViewFixture, SCRIPT_PROMPT, type ViewFixture } from './fixture.js'
import { viewerSourceDigest } from './screenshots.js'
import { serveView, type ServedView } from './serve.js'

let fixture: ViewFixture
let browser: Browser
let page: Page
let server: ServedView | undefined
let errors: string[]
const taken = new Set<string>()

/**
 * With BRIDLE_VIEW_SCREENSHOTS=DIR (`pnpm --filter @bridle/view screenshots`), each page this test checks is also saved as
 * DIR/NAME.png: the README's pictures are the pages the assertions just passed on. Once all are taken, the digest of
 * the viewer source they show is recorded beside them (screenshots.spec.ts compares it with the current source).
 */
async function screenshot(name: string): Promise<void> {
  const dir = process.env.BRIDLE_VIEW_SCREENSHOTS
  if (!dir) return
  await page.screenshot({ path: join(dir, `${name}.png`) as `${string}.png`, fullPage: false })
  taken.add(name)
}

beforeAll(async () => {
  fixture = await makeViewFixture()
  browser = await launchBrowser()
  ;({ page, errors } = await viewerPage(browser))
})

afterAll(async () => {
  await server?.close()
  await closeBrowser(browser)
  const dir = process.env.BRIDLE_VIEW_SCREENSHOTS
  if (dir && taken.size === 3) writeFileSync(join(dir, 'viewer-source.sha256'), `${viewerSourceDigest()}\n`)
})

afterEach(() => {
  // every page the tests open renders without a console error, an exception or a failed request
  expect(errors.splice(0)).toEqual([])
})

const textOnce = (selector: string) => textOnceOn(page, selector)

/** What the session page shows of the two-turn fixture, on the served page and in the --html file alike. */
async function expectSessionPage(): Promise<void> {
  const text = await textOnce('[data-turn="2"]')
  expect(text).toContain(`Session ${fixture.id}`)
  expect(text).toContain('✓ all verify')
  expect(await page.$$eval('[data-turn]', (turns) => turns.map((t) => t.getAttribute('data-turn')))).toEqual(['1', '2'])
  expect(await page.$$eval('[data-step]', (steps) => steps.map((s) => s.getAttribute('data-step')))).toEqual([
    '1.1',
    '1.2',
    '2.1',
  ])
  expect(text).toContain('read_file')
  expect(text).toContain('tool-calls')
  // the model-visible prompt is shown as text, never run as markup
  expect(text).toContain(SCRIPT_PROMPT)
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined()
  expect(
    await page.$$eval('script', (s) => s.filter((e) => e.textContent?.trim() === 'window.__pwned = 1').length),
  ).toBe(0)
  // the prefix chart: one point per request that has a previous one (3 requests → 2 points), the break in red
  await page.waitForSelector('[aria-label^="share of the prompt kept"] svg')
  expect(
    await page.$$eval('[aria-label^="share of the prompt kept"] g[aria-label="dot"] circle', (c) => c.length),
  ).toBe(2)
  // …and a legend says what red means, in the red the points are drawn in
  const legend = await page.$$eval('[data-legend="prefix"] > span', (items) =>
    items.map((item) => [item.textContent?.trim(), getComputedStyle(item.querySelector('.swatch')!).backgroundColor]),
  )
  expect(legend).toEqual([
    ['prefix held: the previous prompt repeats in full', 'rgb(78, 121, 167)'],
    ['prefix broke: hover a point for why', 'rgb(225, 87, 89)'],
  ])
  expect(
    await page.$$eval('[aria-label^="share of the prompt kept"] g[aria-label="dot"] circle', (dots) =>
      dots.map((d) => d.getAttribute('fill')),
    ),
  ).toContain('#e15759')
  // the scripted model reports no usage: no token card at all, rather than an empty one
  expect(await page.$('#tokens-chart')).toBeNull()
  await expectLabelledAlignedRequestRows()
}

/** Every step's request table has the same labelled columns, at the same places down the page. */
async function expectLabelledAlignedRequestRows(): Promise<void> {
  const tables = await page.$$eval('table.requests', (all) =>
    all.map((table) => ({
      heads: Array.from(table.querySelectorAll('th')).map((th) => th.textContent),
      lefts: Array.from(table.querySelectorAll('tbody tr:first-child td')).map((td) =>
        Math.round(td.getBoundingClientRect().left),
      ),
    })),
  )
  expect(tables).toHaveLength(3)
  for (const table of tables) {
    expect(table.heads).toEqual([
      'request',
      'model',
      'verified',
      'tokens in · cached · out',
      'latency (first output)',
      'finish reason',
      'prompt kept',
    ])
    expect(table.lefts).toEqual(tables[0]!.lefts)
  }
  const kept = await page.$$eval('tr[data-request] td:last-child', (tds) => tds.map((td) => td.textContent))
  expect(kept[0]).toBe('first request')
  expect(kept[1]).toMatch(/^\d+%$/)
}

/** Opens request 2.1 from the session page and checks the diff names the persona section as the cache break. */
async function expectPersonaBreak(): Promise<void> {
  await page.click('[data-step="2.1"] a[href*="/request/"]')
  const text = await textOnce('.prefix-break')
  expect(page.url()).toMatch(new RegExp(`#/session/${fixture.id}/request/2\\.1$`))
  expect(text).toMatch(
    /The cache prefix broke at byte [\d,]+, in the system \(line \d+\): system: section \S*persona\S* changed/,
  )
  // the snippet shows the changed words themselves: "briefly" inserted, nothing the previous request had removed, and
  // the unchanged text around it (from a word's start) as unchanged
  const excerpt = (side: string) =>
    page.$eval(`.break-excerpt.${side}`, (pre) =>
      Array.from(pre.children).map((child) => [child.tagName.toLowerCase(), child.className, child.textContent]),
    )
  const current = await excerpt('current')
  const previous = await excerpt('previous')
  expect(current.find(([tag]) => tag === 'ins')?.[2]?.trim()).toBe('briefly')
  expect(previous.some(([tag]) => tag === 'del')).toBe(false)
  expect(previous.find(([, cls]) => cls === 'nothing')?.[2]).toBe('(nothing here)')
  const held = current.filter(([, cls]) => cls === 'held').map(([, , t]) => t)
  expect(held[0]).toBe('You ')
  expect(held[1]).toMatch(/^answer questions about the project in /)
  expect(previous.filter(([, cls]) => cls === 'held').map(([, , t]) => t)).toEqual(held)
  // the request's header line names the finish reason once, not "stop stop"
  const facts = await page.$eval('main > p.facts', (p) => p.textContent ?? '')
  expect(facts).not.toMatch(/stop stop/)
  expect(facts).toMatch(/ · finish reason \S+/)
  expect(await page.$$eval('.line-diff li.added', (lines) => lines.map((l) => l.textContent).join('\n'))).toContain(
    'briefly',
  )
  expect(await page.$$eval('[data-section]', (s) => s.map((e) => e.getAttribute('data-section')))).toContainEqual(
    expect.stringContaining('persona'),
  )
}

describe('the viewer in headless Chromium', () => {
  it('the HTML export opens from disk with no server and shows the session, its chart and the cache break', async () => {
    const file = join(fixture.app.dir, 'session.html')
    const opened = await openSource(fixture.app)
    try {
      expect(await writeSessionHtml(opened.source, fixture.id, file)).toMatchObject({ requests: 3 })
    } finally {
      await opened.close()
    }
    const requests: string[] = []
    page.on('request', (r) => requests.push(r.url()))
    await page.goto(pathToFileURL(file).href)
    await expectSessionPage()
    await screenshot('session')
    await expectPersonaBreak()
    await screenshot('request')
    page.removeAllListeners('request')
    expect(requests.filter((url) => !url.startsWith('file:') && !url.startsWith('data:'))).toEqual([])
  })

  it('the served viewer lists sessions newest first with ✗ on the tampered one, and opens a session', async () => {
    server = await serveView(fixture.app)
    await page.goto(server.url)
    await page.waitForSelector('tr[data-session]')
    const rows = await page.$$eval('tr[data-session]', (trs) =>
      trs.map((tr) => [tr.getAttribute('data-session'), (tr as HTMLElement).textContent]),
    )
    expect(rows.map(([id]) => id)).toEqual([fixture.tampered, fixture.id])
    expect(rows[0]![1]).toContain('✗ verification failed')
    expect(rows[1]![1]).toContain('✓ all verify')
    // the model and the first prompt, as `bridle sessions` shows them
    const columns = await page.$$eval('table.sessions th', (ths) => ths.map((th) => th.textContent))
    expect(columns.slice(-2)).toEqual(['model', 'first prompt'])
    const firstRow = await page.$$eval(`tr[data-session="${fixture.id}"] td`, (tds) => tds.map((td) => td.textContent))
    expect(firstRow.slice(-2)).toEqual(['scripted/scripted-demo', SCRIPT_PROMPT])
    await screenshot('sessions')
    await page.click(`tr[data-session="${fixture.id}"] a`)
    await expectSessionPage()
    await expectPersonaBreak()
  })

  it('updates the open session page while an agent appends a turn', async () => {
    await page.goto(`${server!.url}#/session/${fixture.id}`)
    await page.waitForSelector('[data-turn="2"]')
    await ask(fixture.app, 'Anything else?', { session: fixture.id })
    await page.waitForSelector('[data-turn="3"]', { timeout: 60_000 })
    expect(await page.$$eval('[data-turn]', (turns) => turns.length)).toBe(3)
  })
})
