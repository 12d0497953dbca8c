import { readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { z } from 'zod'
import { AppConfigError } from './errors.js'

/** One plugin row: a package name or a local module path (relative to the YAML file), plus its config. */
const PluginRowSchema = z.union([
  z
    .string()
    .min(1)
    .transform((name) => ({ package: name, config: undefined as unknown })),
  z.object({ package: z.string().min(1), config: z.unknown().optional() }).strict(),
  z.object({ path: z.string().min(1), config: z.unknown().optional() }).strict(),
])

const AgentSchema = z
  .object({
    provider: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    maxTokens: z.number().int().positive().optional(),
    /** Steps one turn may take (`AgentOptions.maxSteps`); `--max-steps` wins. */
    maxSteps: z.number().int().positive().optional(),
    /** The agent's working directory, relative to the YAML file. */
    cwd: z.string().min(1).optional(),
  })
  .strict()

export const AppConfigSchema = z
  .object({
    plugins: z.array(PluginRowSchema).default([]),
    /** Config of `@bridle/system-prompt` (persona, toolOrder, harnessSource relative to this file, …). */
    systemPrompt: z.record(z.string(), z.unknown()).optional(),
    /** Config of `@bridle/agent-loop` (maxParallelToolCalls, …). */
    agentLoop: z.record(z.string(), z.unknown()).optional(),
    agent: AgentSchema.default({}),
    /** Turns for the scripted offline model, used only when no real model is configured. */
    scripted: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()

export type PluginRow = { package: string; config?: unknown } | { path: string; config?: unknown }

export interface AppConfig {
  /** Absolute path of the YAML file, or `undefined` for the built-in default app. */
  file: string | undefined
  /** The folder relative paths are resolved against. */
  dir: string
  plugins: PluginRow[]
  systemPrompt: Record<string, unknown> | undefined
  agentLoop: Record<string, unknown> | undefined
  agent: z.infer<typeof AgentSchema>
  scripted: Record<string, unknown> | undefined
}

export { AppConfigError }

function describeRow(raw: unknown, index: number): string {
  if (typeof raw === 'string') return `plugin "${raw}"`
  if (raw && typeof raw === 'object') {
    const row = raw as { package?: unknown; path?: unknown }
    if (typeof row.package === 'string') return `plugin "${row.package}"`
    if (typeof row.path === 'string') return `plugin "${row.path}"`
  }
  return `plugins[${index}]`
}

/** Validates a parsed YAML document. Errors read `<file>: <where>: <what>`. */
export function parseAppConfig(raw: unknown, file: string | undefined, dir: string): AppConfig {
  const where = appLabel(file)
  const parsed = AppConfigSchema.safeParse(raw ?? {})
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const [head, index, ...rest] = issue.path
      if (head === 'plugins' && typeof index === 'number') {
        const row = (raw as { plugins?: unknown[] }).plugins?.[index]
        const field = rest.length > 0 ? rest.join('.') : 'row'
        const hint =
          issue.code === 'invalid_union'
            ? 'expected a package name, {package, config} or {path, config}'
            : issue.message
        return `${describeRow(row, index)}: ${field}: ${hint}`
      }
      return `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`
    })
    throw new AppConfigError(`${where}: invalid app config: ${lines.join('; ')}`)
  }
  const { plugins, systemPrompt, agentLoop, agent, scripted } = parsed.data
  // paths in the file are relative to it, like agent.cwd
  const source = systemPrompt?.harnessSource
  return {
    file,
    dir,
    plugins: plugins as PluginRow[],
    systemPrompt:
      typeof source === 'string' && source !== ''
        ? { ...systemPrompt, harnessSource: resolve(dir, source) }
        : systemPrompt,
    agentLoop,
    agent: agent.cwd !== undefined ? { ...agent, cwd: resolve(dir, agent.cwd) } : agent,
    scripted,
  }
}

/** Why the app config could not be read, in words, with what to do. */
function readProblem(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'no such file'
    case 'EISDIR':
      return 'it is a folder; -c names the bridle.yaml file itself'
    case 'EACCES':
    case 'EPERM':
      return 'no permission to read it'
    default:
      return (error as Error).message
  }
}

/** Reads and validates a bridle.yaml file. */
export async function loadAppConfig(file: string): Promise<AppConfig> {
  const path = resolve(file)
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new AppConfigError(`${path}: cannot read app config: ${readProblem(error)}`)
  }
  // the YAML parser is loaded only for an app that has a file (the built-in app needs none)
  const { parse: parseYaml } = await import('yaml')
  let raw: unknown
  try {
    raw = parseYaml(text)
  } catch (error) {
    throw new AppConfigError(`${path}: invalid YAML: ${(error as Error).message}`)
  }
  return parseAppConfig(raw, path, dirname(path))
}

/** How messages name an app: its YAML file, or `(built-in app)` for the default app. */
export const appLabel = (file: string | undefined) => file ?? '(built-in app)'

/** Label of a plugin row for messages. */
export const rowName = (row: PluginRow) => ('package' in row ? row.package : row.path)
