import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Agent } from '@bridle/agent-loop'
import { boot, type BootedApp } from '../boot.js'
import { resolveApp } from '../default-app.js'
import { devInput } from '../dev-input.js'
import { describeOwnership, planOwnership } from '../dev-ownership.js'
import { EXIT } from '../errors.js'
import { HotReloader, type ReloadReport } from '../hot-reload.js'
import { showPathFrom } from '../load-error.js'
import { paint, type Io } from '../terminal.js'
import { appLabel } from '../app-config.js'
import { appFieldOf, assembleDry, checkAppPaths, entryNamed } from '../validate.js'
import { compactNow, COMPACT_LINE } from './dev-compact.js'
import { openCheckedAgent, runPrompt } from './run.js'

export interface DevOptions {
  config?: string
  watch?: string
  session?: string
  model?: string
  baseUrl?: string
  provider?: string
  maxSteps?: number
}

/** True when the app's session backend has `id`: what `bridle sessions` would list. */
async function isStored(booted: BootedApp, id: string): Promise<boolean> {
  const persistence = booted.ctx.get('sessionPersistence')
  if (!persistence) return false
  return (await persistence.list()).some((header) => header.id === id)
}

/**
 * `bridle dev`: an interactive session (a readline prompt on a terminal, one prompt per line on a pipe) whose
 * plugins in the watched folder hot-reload. Reloads and prompts run one at a time, so each prompt sees a settled
 * set of plugins. A `path:` row inside the watched folder is loaded by the watcher (with its config), never by
 * boot as well; rows that do not hot-reload are named at start.
 */
export async function dev(options: DevOptions, io: Io, input: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const p = paint(io)
  const app = await resolveApp(options.config)
  checkAppPaths(app)
  const dir = resolve(app.dir, options.watch ?? 'plugins')
  const ownership = planOwnership(app, dir)
  const booted = await boot(app, {
    model: options.model,
    baseUrl: options.baseUrl,
    provider: options.provider,
    skipRow: (row) => 'path' in row && ownership.watched.has(resolve(app.dir, row.path)),
  })
  if (booted.model) io.err(`${booted.model.notice}\n`)
  // the app as bridle.yaml defines it must assemble; the watched plugins are checked as they load (warnings)
  let agent: Agent | undefined = await openCheckedAgent(booted, {
    session: options.session,
    maxSteps: options.maxSteps,
  })
  // every path dev prints is relative to the app folder (where bridle.yaml is)
  const shownDir = showPathFrom(app.dir)(dir) || '.'
  if (!existsSync(dir))
    io.err(
      `bridle dev: warning: the watch folder ${shownDir} does not exist; nothing hot-reloads (create it and restart)\n`,
    )
  for (const line of describeOwnership(ownership, app, dir)) io.err(`${line}\n`)

  const prompts = devInput(input, io)
  const check = async () => {
    try {
      await assembleDry(booted.ctx, agent!)
    } catch (error) {
      const message = (error as Error).message
      io.err(
        `${p.yellow('bridle dev: warning:')} ${whereFrom(message)}${message} (the next prompt fails until this is fixed)\n`,
      )
    }
  }
  // an assembly error names the file or row of the plugin that registered the section it names, else the app field
  const whereFrom = (message: string): string => {
    const entry = entryNamed(message)
    const owner = entry && booted.ctx.systemPrompt.ownerOf(entry.kind, entry.name, agent)
    if (owner) return `${reloader.describePlugin(owner.plugin, owner.name)}: `
    const field = appFieldOf(message)
    return field ? `${appLabel(app.file)}: ${field}: ` : ''
  }
  const report = (r: ReloadReport) =>
    prompts.announce(() => {
      const changes = r.changes > 0 ? `system-prompt/change ×${r.changes}` : ''
      const via = r.via ? `via ${r.via.join(', ')}` : ''
      const detail = [via, changes].filter(Boolean).join('; ')
      const suffix = detail ? p.dim(` (${detail})`) : ''
      const previous = r.kept ? ' (the previous version stays loaded)' : ' (not loaded)'
      if (r.action === 'failed') {
        io.err(`${p.red('bridle: failed to load')} ${r.file}${via ? ` (${via})` : ''}: ${r.error}${previous}\n`)
      } else if (r.action === 'removed')
        io.err(`bridle dev: ${r.file} was deleted; it was not loaded, so nothing unloads\n`)
      else io.err(`bridle dev: ${r.action} ${r.file}${suffix}\n`)
    })
  const reloader = new HotReloader(
    booted,
    dir,
    (r) => {
      report(r)
      if (r.action !== 'failed' && agent) void reloader.serialize(check)
    },
    ownership.watched,
  )
  let code: number = EXIT.ok
  let running = false
  // a resumed session is named at start; a new one once its first turn is stored
  let announced = options.session !== undefined
  try {
    await reloader.start()
    await reloader.serialize(check)
    // a new session is stored with its first turn: until then no command knows its id, so none is printed yet
    const which = options.session === undefined ? 'new session' : `session ${agent.id}`
    io.err(
      `bridle dev: ${which}; watching ${shownDir}; one prompt per line, end with Ctrl-D (${COMPACT_LINE} compacts the history)\n`,
    )
    prompts.onInterrupt(() => {
      if (running) agent?.cancel({ kind: 'user' })
      else prompts.close()
    })
    prompts.ready()
    for await (const line of prompts.lines()) {
      const prompt = line.trim()
      if (prompt === '') {
        prompts.ready()
        continue
      }
      prompts.busy()
      running = true
      const opened = agent
      code = await reloader.serialize(() =>
        prompt === COMPACT_LINE ? compactNow(booted, opened, io) : runPrompt(booted, opened, prompt, io),
      )
      running = false
      if (!announced && (announced = await isStored(booted, opened.id))) io.err(`bridle dev: session ${opened.id}\n`)
      prompts.ready()
    }
  } finally {
    // also when a prompt throws: the watcher would keep the process alive
    prompts.close()
    await reloader.close()
    const opened = agent
    agent = undefined
    await opened.dispose()
    const stored = await isStored(booted, opened.id)
    await booted.close()
    io.err(stored ? `bridle: session ${opened.id}\n` : 'bridle dev: no prompt ran, so no session was stored\n')
  }
  return code
}
