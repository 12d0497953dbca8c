import { statSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import type { Context } from 'cordis'
import type { Agent } from '@bridle/agent-loop'
import type { SessionPersistence } from '@bridle/session'
import { PERSONA_SECTION, renderContextSections, renderPrompt } from '@bridle/system-prompt'
import { AppConfigError, appLabel, rowName, type AppConfig } from './app-config.js'
import { UsageError } from './errors.js'

/** `undefined` when `path` is a directory, else what is wrong with it. */
function directoryProblem(path: string): string | undefined {
  try {
    return statSync(path).isDirectory() ? undefined : `not a directory: ${path}`
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ENOENT' ? `no such directory: ${path}` : `cannot use ${path}: ${(error as Error).message}`
  }
}

/**
 * Directory fields in the config of plugins the CLI ships: the plugin reads them only when the model calls a tool or
 * a context renders, so a missing one would otherwise surface inside a tool result. A relative value is left to the
 * plugin's own `Config`, which refuses it with its own message.
 */
const PLUGIN_DIRECTORY_FIELDS: Readonly<Record<string, readonly string[]>> = {
  '@bridle/plugin-read-file': ['root'],
  '@bridle/plugin-workspace': ['defaultCwd'],
}

/**
 * Paths of the app that must exist before an agent starts: `agent.cwd` (else tools fail inside the first tool
 * result), `systemPrompt.harnessSource`, and the directory fields of shipped plugins' rows
 * (`PLUGIN_DIRECTORY_FIELDS`). Throws an `AppConfigError` naming the file, the row and the field.
 */
export function checkAppPaths(app: AppConfig): void {
  const fields: [string, unknown][] = [
    ['agent.cwd', app.agent.cwd],
    ['systemPrompt.harnessSource', app.systemPrompt?.harnessSource],
  ]
  for (const row of app.plugins) {
    const config = row.config
    if (!('package' in row) || typeof config !== 'object' || config === null) continue
    for (const field of PLUGIN_DIRECTORY_FIELDS[row.package] ?? []) {
      const path = (config as Record<string, unknown>)[field]
      if (typeof path === 'string' && isAbsolute(path)) fields.push([`plugin "${rowName(row)}": ${field}`, path])
    }
  }
  for (const [field, path] of fields) {
    if (typeof path !== 'string') continue
    const problem = directoryProblem(path)
    if (problem) throw new AppConfigError(`${appLabel(app.file)}: ${field}: ${problem}`)
  }
}

/**
 * A session to resume must still have its working directory: its tools and its `{{cwd}}` resolve against it. Checked
 * from the stored header before the resume, so a refused resume writes nothing into the log. Throws a `UsageError`
 * naming the session (exit 2, before any model call); an unknown id is left to the resume's own error.
 */
export async function checkStoredCwd(persistence: SessionPersistence, id: string): Promise<void> {
  const cwd = (await persistence.list()).find((header) => header.id === id)?.cwd
  if (cwd === undefined) return
  const problem = directoryProblem(cwd)
  if (problem) {
    throw new UsageError(`session ${id}: cwd: ${problem} (restore the folder, or start a new session without -s)`)
  }
}

/** The app field an assembly error belongs to, when the message names one the app file sets. */
function fieldOf(message: string): string | undefined {
  if (message.includes(`section "${PERSONA_SECTION}"`)) return 'systemPrompt.persona'
  if (message.startsWith('toolOrder ')) return 'systemPrompt.toolOrder'
  return undefined
}

/** A dry assembly for `agent`, rendered as its first step would render it; throws what the step would throw. */
export async function assembleDry(ctx: Context, agent: Agent): Promise<void> {
  const assembly = await ctx.systemPrompt.assemble({ agent, scope: agent, dry: true })
  renderPrompt(assembly)
  renderContextSections(assembly)
}

/** The section or context an assembly error names (`section "x"`, `context "x"`), if any. */
export function entryNamed(message: string): { kind: 'section' | 'context'; name: string } | undefined {
  const found = /\b(section|context) "([^"]+)"/.exec(message)
  return found ? { kind: found[1] as 'section' | 'context', name: found[2]! } : undefined
}

/** The app field an assembly error belongs to (`systemPrompt.persona`, `systemPrompt.toolOrder`), if any. */
export const appFieldOf = (message: string): string | undefined => fieldOf(message)

/**
 * The dry assembly at boot: assembles and renders the system prompt and runtime context for `agent` as its first step
 * will, without calling the model, so an unknown `{{variable}}`, a toolOrder naming a missing tool or a provider that
 * throws fails now, as one line naming the field (or the section), instead of inside the first turn. It is marked
 * `dry` (the system-prompt README, "Providers"): context providers are not called, so one whose text has a side
 * effect (a counter) is called once per step and never by a check.
 */
export async function dryAssemble(app: AppConfig, ctx: Context, agent: Agent): Promise<void> {
  try {
    await assembleDry(ctx, agent)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const field = fieldOf(message)
    throw new AppConfigError(`${appLabel(app.file)}: ${field ? `${field}: ` : ''}${message}`, { cause: error })
  }
}
