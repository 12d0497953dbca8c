import { createInterface } from 'node:readline'
import { resolve } from 'node:path'
import type { Agent } from '@bridle/agent-loop'
import { boot } from '../boot.js'
import { resolveApp } from '../default-app.js'
import { HotReloader, type ReloadReport } from '../hot-reload.js'
import { paint, type Io } from '../terminal.js'
import { compactNow, COMPACT_LINE } from './dev-compact.js'
import { openAgent, runPrompt } from './run.js'

export interface DevOptions {
  config?: string
  watch?: string
  session?: string
  model?: string
  baseUrl?: string
}

/**
 * `bridle dev`: an interactive session (one prompt per input line) whose plugins in the watched folder
 * hot-reload. Reloads and prompts run one at a time, so each prompt sees a settled set of plugins.
 */
export async function dev(options: DevOptions, io: Io, input: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const p = paint(io)
  const app = await resolveApp(options.config)
  const booted = await boot(app, { model: options.model, baseUrl: options.baseUrl, secrets: io.secrets })
  if (booted.model) io.err(`${booted.model.notice}\n`)
  const dir = resolve(app.dir, options.watch ?? 'plugins')
  const report = (r: ReloadReport) => {
    const changes = r.changes > 0 ? p.dim(` (system-prompt/change ×${r.changes})`) : ''
    const previous = r.kept ? ' (the previous version stays loaded)' : ' (not loaded)'
    if (r.action === 'failed') io.err(`${p.red('bridle dev: failed to load')} ${r.file}: ${r.error}${previous}\n`)
    else io.err(`bridle dev: ${r.action} ${r.file}${changes}\n`)
  }
  const reloader = new HotReloader(booted, dir, report)
  await reloader.start()
  let agent: Agent | undefined
  let code = 0
  try {
    const opened = (agent = await openAgent(booted, { session: options.session }))
    io.err(`bridle dev: session ${opened.id}; watching ${dir}; one prompt per line (${COMPACT_LINE} compacts the history), end with Ctrl-D\n`)
    const lines = createInterface({ input, terminal: false })
    for await (const line of lines) {
      const prompt = line.trim()
      if (prompt === '') continue
      if (prompt === COMPACT_LINE) code = await reloader.serialize(() => compactNow(booted, opened, io))
      else code = await reloader.serialize(() => runPrompt(booted, opened, prompt, io))
      io.err(`bridle dev: ready\n`)
    }
  } finally {
    // also when the session cannot be opened or a prompt throws: the watcher would keep the process alive
    await reloader.close()
    await agent?.dispose()
  }
  io.err(`bridle: session ${agent.id}\n`)
  return code
}
