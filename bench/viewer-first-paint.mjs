// The session viewer's first paint on a 10,000-event session (issue 21): a log recorded by a real agent (a tool call
// and an answer per turn, usage reported), served by `bridle view ID` (the built CLI, a fresh process per run; it
// builds the session's view before it prints its URL) and opened in headless Chromium (@sparticuz/chromium, as the
// tests use). The clock runs from navigation start to the frame after the session page has its timeline and both
// charts. Beside it: the server's own JSON build (a cold `bridle view` server's `/api/sessions/ID`, fetched and
// parsed: what `bridle view ID` spends before printing its URL), and the `--html` file opened from disk.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { bootCore, llm, middle, quick, tick } from './lib.mjs'

const EVENTS = quick ? 3_000 : 10_000
const BAR_MS = 2_000
// each run starts two cold servers that build the whole session view, so fewer runs than the in-process scenarios
const RUNS = quick ? 1 : 2
const BIN = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url))
// the browser and its driver are the CLI package's test dependencies
const fromCli = createRequire(new URL('../packages/cli/package.json', import.meta.url))
const puppeteer = fromCli('puppeteer-core')
const chromiumModule = fromCli('@sparticuz/chromium')
const chromium = chromiumModule.default ?? chromiumModule
const QUIET = ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']

/** Records a session of at least `count` events under `root`: turns of one tool call and one answer, with usage. */
export async function recordSession(root, count) {
  const ctx = bootCore({ persistence: { root } })
  let answered = 0
  ctx.llm.registerAdapter(['bench'], {
    async *stream(request) {
      const last = request.messages.at(-1)
      const usage = { inputTokens: 300 + (answered % 50), cacheReadTokens: 1_000 + answered * 3, outputTokens: 20 }
      if (last.role === 'user' && last.content.some((b) => b.type === 'tool-result')) {
        const text = `The lookup says item ${answered++} is in stock.`
        yield { type: 'block-start', index: 0, blockType: 'text' }
        yield { type: 'text-delta', index: 0, text }
        yield { type: 'block-end', index: 0, block: { type: 'text', text } }
        yield { type: 'usage', usage }
        yield { type: 'finish', reason: { kind: 'stop' } }
        return
      }
      const call = { type: 'tool-call', id: `call-${answered}`, name: 'lookup', arguments: `{"item":${answered}}` }
      yield { type: 'block-start', index: 0, blockType: 'tool-call' }
      yield { type: 'tool-call-delta', index: 0, id: call.id, name: call.name, argumentsDelta: call.arguments }
      yield { type: 'block-end', index: 0, block: call }
      yield { type: 'usage', usage }
      yield { type: 'finish', reason: { kind: 'tool-calls' } }
    },
  })
  ctx.tools.register({
    name: 'lookup',
    description: 'Looks an item up in the inventory.',
    parameters: { type: 'object', properties: { item: { type: 'integer' } }, required: ['item'] },
    execute: ({ item }) => `item ${item}: in stock, shelf ${item % 40}`,
  })
  ctx.systemPrompt.section({ name: 'bench:persona', order: 0, text: 'You answer inventory questions.' })
  await tick()
  const agent = ctx.agentLoop.create({ provider: 'bench', model: 'inventory' })
  let turn = 0
  while (agent.session.events.length < count) {
    agent.followup(llm.createUserMessage(`Is item ${turn++} in stock?`))
    await agent.whenIdle()
  }
  const recorded = { id: agent.session.id, events: agent.session.events.length, turns: turn }
  await ctx.sessions.flush(agent.session)
  await agent.dispose()
  await ctx.scope.dispose()
  return recorded
}

/** Starts `bridle view ARGS` in `cwd`; resolves its URL and a stop function. */
function startView(args, cwd) {
  const child = spawn(process.execPath, [BIN, 'view', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  const closed = new Promise((resolve) => child.on('close', resolve))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await closed
  }
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      stdout += d
      const url = /^(http:\S+)$/m.exec(stdout)?.[1]
      if (url) resolve({ url, stop })
    })
    void closed.then((code) => reject(new Error(`bridle view exited ${code} before printing a URL:\n${stderr}`)))
  })
}

/**
 * Opens `url` in a fresh tab and resolves the milliseconds from navigation start to the frame after the session
 * page shows its timeline and both charts (two animation frames: the second runs once the first was painted).
 */
async function timeToSessionPaint(browser, url) {
  const page = await browser.newPage()
  try {
    await page.setViewport({ width: 1100, height: 900 })
    await page.evaluateOnNewDocument(() => {
      const ready = () =>
        document.querySelector('[data-turn]') &&
        document.querySelector('[aria-label^="tokens per request"] svg') &&
        document.querySelector('[aria-label^="share of the prompt kept"] svg')
      new MutationObserver((_, observer) => {
        if (!ready()) return
        observer.disconnect()
        requestAnimationFrame(() => requestAnimationFrame(() => (window.__painted = performance.now())))
      }).observe(document, { subtree: true, childList: true })
    })
    // a slow page is a result, not an error: wait for as long as it takes (the clock is the page's own)
    await page.goto(url, { timeout: 0 })
    await page.waitForFunction(() => window.__painted !== undefined, { timeout: 0, polling: 50 })
    return await page.evaluate(() => window.__painted)
  } finally {
    await page.close()
  }
}

/** Milliseconds a cold server takes to answer the session's JSON, fetched and parsed. */
async function timeToJson(url, id) {
  const started = performance.now()
  const response = await fetch(`${url}api/sessions/${encodeURIComponent(id)}`)
  const view = await response.json()
  if (!Array.isArray(view.turns)) throw new Error(`unexpected session JSON: ${JSON.stringify(view).slice(0, 200)}`)
  return performance.now() - started
}

export async function viewerFirstPaint() {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-bench-view-'))
  const browser = await puppeteer.launch({
    executablePath: await chromium.executablePath(),
    args: [...chromium.args, '--no-sandbox', ...QUIET],
    headless: true,
  })
  try {
    // the CLI's default app keeps sessions in ./.bridle/sessions, so `bridle view` in `dir` reads this one
    const session = await recordSession(join(dir, '.bridle', 'sessions'), EVENTS)
    const file = join(dir, 'session.html')
    await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'inspect', session.id, '--html', file], { cwd: dir, stdio: 'ignore' })
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`inspect --html exited ${code}`))))
    })
    const paints = []
    const jsons = []
    const files = []
    for (let run = 0; run < RUNS; run++) {
      const served = await startView([session.id], dir)
      try {
        paints.push(await timeToSessionPaint(browser, served.url))
      } finally {
        await served.stop()
      }
      const cold = await startView([], dir)
      try {
        jsons.push(await timeToJson(cold.url, session.id))
      } finally {
        await cold.stop()
      }
      files.push(await timeToSessionPaint(browser, pathToFileURL(file).href))
    }
    const [paint, json, html] = [middle(paints), middle(jsons), middle(files)]
    const slowest = Math.max(...paints)
    const requests = session.turns * 2
    return {
      title: `Session viewer first paint, ${session.events.toLocaleString('en-US')} events (${requests} requests), ${RUNS} runs: medians`,
      columns: ['what', 'time (ms, median)', 'ratio to the cold server JSON'],
      rows: [
        [
          "server JSON build: a cold server's `/api/sessions/ID` fetched and parsed (before `view ID` prints its URL)",
          json.toFixed(0),
          '1.00',
        ],
        [
          'served session page, after the URL is printed: navigation → timeline and both charts painted',
          paint.toFixed(0),
          (paint / json).toFixed(2),
        ],
        [
          `\`inspect --html\` file (${(statSync(file).size / 2 ** 20).toFixed(1)} MiB) from disk, same paint`,
          html.toFixed(0),
          (html / json).toFixed(2),
        ],
      ],
      bars: [
        {
          name: `served session page painted in under ${BAR_MS} ms in every run (slowest run)`,
          value: slowest,
          ok: slowest < BAR_MS,
        },
      ],
    }
  } finally {
    const child = browser.process()
    await Promise.race([browser.close(), new Promise((resolve) => setTimeout(resolve, 10_000))])
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
}
