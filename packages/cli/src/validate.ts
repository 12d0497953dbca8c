import { statSync } from 'node:fs'
import type { Context } from 'cordis'
import type { Agent } from '@bridle/agent-loop'
import { PERSONA_SECTION, renderContextSections, renderPrompt } from '@bridle/system-prompt'
import { AppConfigError, appLabel, type AppConfig } from './app-config.js'

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
 * Paths of the app that must exist before an agent starts: `agent.cwd` (else tools fail inside the first tool
 * result) and `systemPrompt.harnessSource`. Throws an `AppConfigError` naming the file and the field.
 */
export function checkAppPaths(app: AppConfig): void {
  const fields: [string, unknown][] = [
    ['agent.cwd', app.agent.cwd],
    ['systemPrompt.harnessSource', app.systemPrompt?.harnessSource],
  ]
  for (const [field, path] of fields) {
    if (typeof path !== 'string') continue
    const problem = directoryProblem(path)
    if (problem) throw new AppConfigError(`${appLabel(app.file)}: ${field}: ${problem}`)
  }
}

/** The app field an assembly error belongs to, when the message names one the app file sets. */
function fieldOf(message: string): string | undefined {
  if (message.includes(`section "${PERSONA_SECTION}"`)) return 'systemPrompt.persona'
  if (message.startsWith('toolOrder ')) return 'systemPrompt.toolOrder'
  return undefined
}

/**
 * The dry assembly at boot: assembles and renders the system prompt and runtime context for `agent` exactly as its
 * first step will, without calling the model, so an unknown `{{variable}}`, a toolOrder naming a missing tool or a
 * provider that throws fails now, as one line naming the field (or the section), instead of inside the first turn.
 */
export async function dryAssemble(app: AppConfig, ctx: Context, agent: Agent): Promise<void> {
  try {
    const assembly = await ctx.systemPrompt.assemble({ agent, scope: agent })
    renderPrompt(assembly)
    renderContextSections(assembly)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const field = fieldOf(message)
    throw new AppConfigError(`${appLabel(app.file)}: ${field ? `${field}: ` : ''}${message}`, { cause: error })
  }
}
