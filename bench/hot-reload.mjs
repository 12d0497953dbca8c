// Hot reload: what `bridle dev` keeps on the heap per reload and how long a reload takes, for a plugin of three modules
// (plugins/notes.mjs → lib/words.ts → lib/text.mjs) whose deepest module is edited 500 times. Each edit reloads the
// plugin through the CLI's HotReloader, exactly as a save does: the module runner re-evaluates the three modules, the
// old plugin is disposed and the new one started. Bar (DESIGN.md): ≤ 100 KB of heap per reload.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { middle, quick, settledHeap, tick } from './lib.mjs'

const cli = await import(new URL('../packages/cli/dist/index.js', import.meta.url).href)
const RELOADS = quick ? 100 : 500
const WARMUP = 20
const WATCHED = quick ? 10 : 30
const BAR_BYTES = 100 * 1024

/** The three modules; `n` changes the deepest one, so every reload carries new text to the model. */
function writeModules(dir, n) {
  writeFileSync(
    join(dir, 'plugins', 'notes.mjs'),
    "import { words } from '../lib/words.ts'\nexport default { name: 'notes', inject: ['systemPrompt'], apply(ctx) {\n" +
      "  ctx.systemPrompt.section({ name: 'bench:notes', order: 50, text: 'Notes: ' + words })\n} }\n",
  )
  writeFileSync(
    join(dir, 'lib', 'words.ts'),
    "import { text } from './text.mjs'\ninterface Words { text: string }\nconst value: Words = { text }\nexport const words: string = value.text.toUpperCase()\n",
  )
  writeFileSync(
    join(dir, 'lib', 'text.mjs'),
    `export const text = ${JSON.stringify(`edit ${n}: ${'a line of notes. '.repeat(20)}`)}\n`,
  )
}

export async function hotReload() {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-bench-reload-'))
  mkdirSync(join(dir, 'plugins'))
  mkdirSync(join(dir, 'lib'))
  writeModules(dir, 0)
  const app = cli.parseAppConfig({ plugins: [] }, undefined, dir)
  const booted = await cli.boot(app, { withModel: false })
  const reports = []
  const reloader = new cli.HotReloader(booted, join(dir, 'plugins'), (report) => reports.push(report))
  await reloader.start({ watch: false })
  const text = join(dir, 'lib', 'text.mjs')
  const check = (n) => {
    const last = reports.at(-1)
    if (last?.action !== 'reloaded' || last.file !== 'plugins/notes.mjs')
      throw new Error(`reload ${n}: ${JSON.stringify(last)}`)
  }
  let n = 0
  for (; n < WARMUP; n++) {
    writeModules(dir, n + 1)
    await reloader.reload([text])
    check(n)
  }
  await tick()
  const before = settledHeap()
  const times = []
  for (let i = 0; i < RELOADS; i++, n++) {
    writeFileSync(text, `export const text = ${JSON.stringify(`edit ${n}: ${'a line of notes. '.repeat(20)}`)}\n`)
    const t = performance.now()
    await reloader.reload([text])
    times.push(performance.now() - t)
    check(n)
  }
  await tick()
  const perReload = (settledHeap() - before) / RELOADS
  const assembled = await booted.ctx.systemPrompt.assemble({ dry: true })
  if (!assembled.sections.some((s) => s.text.includes(`EDIT ${n - 1}:`)))
    throw new Error('the last edit is not assembled')
  await reloader.close()
  await booted.close()

  // The same reload as a save in `bridle dev` sees it: the watcher waits for the write to settle (50 ms), then reloads.
  const watchedApp = await cli.boot(app, { withModel: false })
  const seen = []
  let arrived
  const watched = new cli.HotReloader(watchedApp, join(dir, 'plugins'), (report) => {
    seen.push(report)
    arrived?.()
  })
  await watched.start()
  const saves = []
  for (let i = 0; i < WATCHED; i++, n++) {
    const done = new Promise((resolve) => (arrived = resolve))
    const t = performance.now()
    writeFileSync(text, `export const text = ${JSON.stringify(`save ${n}`)}\n`)
    await done
    saves.push(performance.now() - t)
  }
  await watched.close()
  await watchedApp.close()
  rmSync(dir, { recursive: true, force: true })

  const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`
  const ms = (value) => `${value.toFixed(1)} ms`
  return {
    title: `Hot reload: a three-module plugin (.mjs → .ts → .mjs) reloaded ${RELOADS} times`,
    columns: ['measure', 'value'],
    rows: [
      ['heap growth per reload (after full collections)', kb(perReload)],
      ['reload latency: invalidate, re-evaluate 3 modules, dispose and start the plugin (median)', ms(middle(times))],
      ['reload latency: slowest of the run', ms(Math.max(...times))],
      [
        `save → reloaded in bridle dev, with the watcher's 50 ms write settle (median of ${WATCHED})`,
        ms(middle(saves)),
      ],
    ],
    bars: [
      { name: 'heap growth per reload ≤ 100 KB (bytes)', value: Math.round(perReload), ok: perReload <= BAR_BYTES },
    ],
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await hotReload(), null, 2))
