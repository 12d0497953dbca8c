import { isAbsolute } from 'node:path'

/**
 * The working directory an assembly is for: the agent's cwd from its session header (agent-loop adds `agent` to the
 * assemble context), else the configured default, else `process.cwd()`. Typed structurally so this plugin needs no
 * dependency on `@bridle/agent-loop`.
 */
export function cwdOf(context: unknown, defaultCwd: string | undefined): string {
  const agent = (context as { agent?: { session?: { header?: { cwd?: unknown } } } } | undefined)?.agent
  const cwd = agent?.session?.header?.cwd
  if (typeof cwd === 'string' && isAbsolute(cwd)) return cwd
  return defaultCwd ?? process.cwd()
}
