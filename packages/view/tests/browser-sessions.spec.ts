/// <reference lib="dom" />
/**
 * The viewer in headless Chromium on sessions other than the main fixture: one whose provider reported usage (the
 * loopback OpenAI mock, so the token chart has real numbers), a long one, a one-turn session opened at its own
 * address, and one that compacted its history (the checkpoint shows as the cache break it caused, with its cause).
 * Every page opens without a console error.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { startMockServer, textEvents, toolCallEvents, type WireUsage } from '@bridle/llm-openai/testing'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { writeSessionHtml } from '../src/index.js'
import { ask, makeApp, openSource, type TestApp } from './app.js'
import { closeBrowser, launchBrowser, viewerPage, textOnce } from './browser.js'
import { writeLongSession } from './long-session.js'
import { serveView } from './serve.js'

let browser: Browser
let page: Page
let errors: string[]

beforeAll(async () => {
  browser = await launchBrowser()
  ;({ page, errors } = await viewerPage(browser))
})

afterAll(() => closeBrowser(browser))

afterEach(() => {
  expect(errors.splice(0)).toEqual([])
})

/** Writes the HTML export of session `id` into `app` and resolves its path. */
async function exportHtml(app: TestApp, id: string, name: string): Promise<string> {
  const file = join(app.dir, name)
  const opened = await openSource(app)
  try {
    await writeSessionHtml(opened.source, id, file)
  } finally {
    await opened.close()
  }
  return file
}

/** Per request label, the token chart's bars: the number each one's title states, and its drawn height. */
async function tokenBars(): Promise<{ label: string; kind: string; tokens: number; height: number }[]> {
  await page.waitForSelector('[aria-label^="tokens per request"] svg')
  return page.$$eval('[aria-label^="tokens per request"] g[aria-label="bar"] rect', (rects) =>
    rects.map((rect) => {
      const [, label, tokens, kind] = /^(\S+): (\d+) (.+)$/.exec(rect.querySelector('title')?.textContent ?? '') ?? []
      return { label: label!, kind: kind!, tokens: Number(tokens), height: Number(rect.getAttribute('height')) }
    }),
  )
}

describe('the viewer on more sessions', () => {
  it('charts the token usage the provider reported, request by request', async () => {
    // prompt_tokens include the cached ones; the adapter reports them disjoint (input = prompt - cached)
    const usage: WireUsage[] = [
      { prompt_tokens: 1200, completion_tokens: 40, prompt_tokens_details: { cached_tokens: 1000 } },
      { prompt_tokens: 1500, completion_tokens: 25, prompt_tokens_details: { cached_tokens: 1150 } },
    ]
    const server = await startMockServer([
      {
        kind: 'sse',
        events: toolCallEvents([{ id: 'call-1', name: 'read_file', argFragments: ['{"path":', '"package.json"}'] }], {
          usage: usage[0],
        }),
      },
      { kind: 'sse', events: textEvents(['It is ', 'acme-invoice-parser.'], { usage: usage[1] }) },
    ])
    const app = makeApp()
    let id: string
    try {
      id = await ask(app, 'What is the package name?', { baseURL: server.url })
    } finally {
      await server.close()
    }
    await page.goto(pathToFileURL(await exportHtml(app, id, 'usage.html')).href)

    await textOnce(page, '[data-step="1.2"]')
    // the tokens column, under its label
    expect(await page.$$eval('tr[data-request] td:nth-child(4)', (tds) => tds.map((td) => td.textContent))).toEqual([
      '200 · 1,000 · 40',
      '350 · 1,150 · 25',
    ])
    expect(await page.$eval('table.requests th:nth-child(4)', (th) => th.textContent)).toBe('tokens in · cached · out')
    expect(await page.$eval('[aria-label^="tokens per request"]', (e) => e.getAttribute('aria-label'))).toBe(
      'tokens per request, 2 requests',
    )
    const bars = await tokenBars()
    expect(bars.map(({ label, kind, tokens }) => [label, kind, tokens])).toEqual([
      ['1.1', 'input (not cached)', 200],
      ['1.1', 'cached input', 1000],
      ['1.1', 'output', 40],
      ['1.2', 'input (not cached)', 350],
      ['1.2', 'cached input', 1150],
      ['1.2', 'output', 25],
    ])
    // drawn to scale: every bar's height is its tokens times one pixels-per-token factor (to a pixel of rounding)
    const scale = bars[1]!.height / bars[1]!.tokens
    for (const bar of bars) expect(Math.abs(bar.height - bar.tokens * scale)).toBeLessThan(1.5)
  })

  it('shows a long session whole: its first turns at once, then every turn in order', async () => {
    const app = makeApp()
    await writeLongSession(app.sessions, 'long', 150)
    const view = await serveView(app)
    // how many turns the page's first timeline held, recorded as it appears
    const watch = await page.evaluateOnNewDocument(() => {
      new MutationObserver((_, observer) => {
        const turns = document.querySelectorAll('[data-turn]').length
        if (turns === 0) return
        ;(window as unknown as { firstTurns: number }).firstTurns = turns
        observer.disconnect()
      }).observe(document, { subtree: true, childList: true })
    })
    try {
      await page.goto(`${view.url}#/session/long`)
      await page.waitForSelector('[data-turn="150"]', { timeout: 60_000 })
      const first = await page.evaluate(() => (window as unknown as { firstTurns: number }).firstTurns)
      expect(first).toBeGreaterThan(0)
      expect(first).toBeLessThan(150)
      const turns = await page.$$eval('[data-turn]', (all) => all.map((t) => Number(t.getAttribute('data-turn'))))
      expect(turns).toEqual(Array.from({ length: 150 }, (_, i) => i + 1))
      const text = await textOnce(page, '[data-turn="150"]')
      expect(text).toContain('Counted to 150.')
      expect(await textOnce(page, 'main')).toContain('✓ all verify')
    } finally {
      await page.removeScriptToEvaluateOnNewDocument(watch.identifier)
      await page.goto('about:blank')
      await view.close()
    }
  })

  it('renders a one-turn session at its own address: its tool call, the answer, every request verified', async () => {
    const app = makeApp()
    const id = await ask(app, 'What is the package name of this project?')
    const view = await serveView(app)
    try {
      await page.goto(`${view.url}#/session/${id}`)
      const text = await textOnce(page, '[data-step="1.2"]')
      expect(text).toContain(`Session ${id}`)
      expect(text).toContain('✓ all verify')
      expect(text).toContain('read_file')
      expect(text).toContain('acme-invoice-parser')
      expect(await page.$$eval('[data-step]', (steps) => steps.map((s) => s.getAttribute('data-step')))).toEqual([
        '1.1',
        '1.2',
      ])
      await page.waitForSelector('[aria-label^="share of the prompt kept"] svg')
      expect(
        await page.$$eval('[aria-label^="share of the prompt kept"] g[aria-label="dot"] circle', (c) => c.length),
      ).toBe(1)
      await page.click('[data-step="1.2"] a[href*="/request/"]')
      const request = await textOnce(page, '[data-section]')
      expect(request).toContain('deployment:persona')
    } finally {
      // leave the page first, so its event stream does not retry against a stopped server
      await page.goto('about:blank')
      await view.close()
    }
  })

  it('shows a compaction checkpoint as the cache break it caused, naming the compaction', async () => {
    const app = makeApp()
    const compaction = { contextWindow: 1200, threshold: 0.5, lowWater: 0.45, summaryMaxTokens: 20 }
    const id = await ask(app, 'What is in package.json?', { compaction })
    await ask(app, 'What is in README.md?', { session: id, compaction })

    const view = await serveView(app)
    try {
      await page.goto(`${view.url}#/session/${id}`)
      await page.waitForSelector('tr.request .tag')
      // the summary request is marked as such
      const tags = await page.$$eval('tr.request .tag', (t) => t.map((e) => e.textContent))
      expect(tags).toEqual(['summary request'])
      const causes = await page.$$eval('tr.request .cause', (c) => c.map((e) => e.textContent ?? ''))
      const compacted = causes.find((c) => c.includes('history compacted'))
      expect(compacted, causes.join('\n')).toMatch(
        /^messages: history compacted in turn \d+ step \d+ \(threshold\): \d+ messages → 1 summary.*\(checkpoint at seq \d+, breaks the prefix at message 1\)$/,
      )
      // the break is a red point on the prefix chart, and the request page names the same cause at the broken byte
      const red = await page.$$eval(
        '[aria-label^="share of the prompt kept"] g[aria-label="dot"] circle',
        (dots) => dots.filter((d) => d.getAttribute('fill') === '#e15759').length,
      )
      expect(red).toBeGreaterThan(0)
      const link = await page.$$eval('tr.request', (rows) =>
        rows
          .find((r) => r.querySelector('.cause')?.textContent?.includes('history compacted'))
          ?.querySelector('a')
          ?.getAttribute('href'),
      )
      await page.goto(`${view.url.replace(/#.*$/, '')}${link}`)
      const request = await textOnce(page, '.prefix-break')
      expect(request).toMatch(/The cache prefix broke at byte [\d,]+, in the messages/)
      expect(request).toContain('history compacted in turn')
    } finally {
      // leave the page first, so its event stream does not retry against a stopped server
      await page.goto('about:blank')
      await view.close()
    }
  })
})
