// The session viewer's first paint on a 10,000-event session (issue 21): a log recorded by a real agent (a tool call
// and an answer per turn, usage reported), opened the way a user opens it. Each run starts the built `bridle view ID`
// (a fresh process, which builds the session's view before it prints its URL) and clocks it to the URL, then opens
// that URL in headless Chromium (@sparticuz/chromium, as the tests use) and clocks the page from navigation start to
// the frame after the session page has its timeline and both charts. The bar is on the sum: what a user waits for
// between running the command and seeing the session. Beside it: writing the `inspect --html` file, its size, and
// the file opened from disk, clocked like the page.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { bootCore, llm, middle, quick, tick } from './lib.mjs'

const EVENTS = quick ? 3_000 : 10_000
const BAR_MS = 2_000
// each run starts a cold server and a cold export, so fewer runs than the in-process scenarios
const RUNS = quick ? 1 : 3
const BIN = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url))
// the browser and its driver are the viewer package's test dependencies
const fromView = createRequire(new URL('../packages/view/package.json', import.meta.url))
const puppeteer = fromView('puppeteer-core')
const chromiumModule = fromView('@sparticuz/chromium')
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

/** Starts `bridle view ARGS` in `cwd`; resolves its URL, the milliseconds from spawning it to the URL, and a stop. */
function startView(args, cwd) {
  const started = performance.now()
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
      if (url) resolve({ url, ms: performance.now() - started, stop })
    })
    void closed.then((code) => reject(new Error(`bridle view exited ${code} before printing a URL:\n${stderr}`)))
  })
}

/** Runs `bridle inspect ID --html FILE` in `cwd`; resolves the milliseconds it took. */
function writeHtml(id, file, cwd) {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'inspect', id, '--html', file], { cwd, stdio: 'ignore' })
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`inspect --html exited ${code}`)),
    )
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
    const builds = []
    const paints = []
    const waits = []
    const writes = []
    const files = []
    for (let run = 0; run < RUNS; run++) {
      const served = await startView([session.id], dir)
      try {
        const paint = await timeToSessionPaint(browser, served.url)
        builds.push(served.ms)
        paints.push(paint)
        waits.push(served.ms + paint)
      } finally {
        await served.stop()
      }
      writes.push(await writeHtml(session.id, file, dir))
      files.push(await timeToSessionPaint(browser, pathToFileURL(file).href))
    }
    const [build, paint, wait, write, html] = [builds, paints, waits, writes, files].map(middle)
    const slowest = Math.max(...waits)
    const requests = session.turns * 2
    const ofBar = (ms) => (ms / BAR_MS).toFixed(2)
    return {
      title: `Session viewer first paint, ${session.events.toLocaleString('en-US')} events (${requests} requests), ${RUNS} runs: medians`,
      columns: ['what', 'time (ms, median)', 'ratio to the 2 s bar'],
      rows: [
        [
          '`bridle view ID`, a fresh process: spawn → URL printed (it builds the session view first)',
          build.toFixed(0),
          ofBar(build),
        ],
        ['served session page: navigation → timeline and both charts painted', paint.toFixed(0), ofBar(paint)],
        ['what a user waits for: the two above, run by run', wait.toFixed(0), ofBar(wait)],
        ['`inspect ID --html FILE`, a fresh process: spawn → file written', write.toFixed(0), ofBar(write)],
        [
          `\`inspect --html\` file (${(statSync(file).size / 2 ** 20).toFixed(1)} MiB) from disk, same paint`,
          html.toFixed(0),
          ofBar(html),
        ],
      ],
      bars: [
        {
          name: `\`bridle view ID\` to URL, plus the page's paint, under ${BAR_MS} ms in every run (slowest run)`,
          value: Math.round(slowest),
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
