import type {} from '@bridle/system-prompt'
import type { ToolAgent } from '@bridle/tools'
import { configuredPlugin } from '@bridle/llm'
import type { Context } from 'cordis'
import { z } from 'zod'
import { Config, type ReadFileConfigInput } from './config.js'
import { workspaceRootOf } from './confine.js'
import {
  READ_FILE_DESCRIPTION,
  READ_FILE_GUIDANCE,
  READ_FILE_GUIDANCE_ORDER,
  READ_FILE_GUIDANCE_SECTION,
  READ_FILE_TOOL,
} from './guidance.js'
import { openInWorkspace } from './open-confined.js'
import { readPage } from './read-lines.js'

/** The `read_file` arguments as the model sends them. */
export const ReadFileParameters = z.strictObject({
  path: z.string().min(1).describe('File path, relative to the workspace root.'),
  offset: z.number().int().min(1).optional().describe('1-based line number to start at (default 1).'),
  limit: z.number().int().min(1).optional().describe('Maximum number of lines to return.'),
})

export type ReadFileArguments = z.output<typeof ReadFileParameters>

/**
 * `@bridle/plugin-read-file`: registers the workspace-confined `read_file` tool and its tool-guidance section
 * (order 110). Load it with `ctx.plugin(ReadFile, config)`; loaded through an agent's `agent.ctx` it serves that
 * agent only. Unloading it removes both the tool and the section from the next step.
 */
export class ReadFile extends configuredPlugin(Config) {
  static inject = ['tools', 'systemPrompt']

  constructor(ctx: Context, config?: ReadFileConfigInput | null) {
    super(ctx, config)
    const { root: configuredRoot, defaultLimit, maxBytes, maxLineLength } = this.config
    ctx.tools.register({
      name: READ_FILE_TOOL,
      description: READ_FILE_DESCRIPTION,
      parameters: ReadFileParameters,
      concurrencySafe: true,
      async execute(args: ReadFileArguments, exec) {
        const root = workspaceRootOf(configuredRoot, exec.agent as ToolAgent | undefined)
        // Open first, then prove where the descriptor lies: a path check alone races with a concurrent rename.
        const { handle } = await openInWorkspace(root, args.path)
        try {
          return await readPage(handle, {
            offset: args.offset ?? 1,
            limit: args.limit ?? defaultLimit,
            maxBytes,
            maxLineLength,
            signal: exec.signal,
            displayPath: args.path,
          })
        } finally {
          await handle.close()
        }
      },
    })
    ctx.systemPrompt.section({
      name: READ_FILE_GUIDANCE_SECTION,
      order: READ_FILE_GUIDANCE_ORDER,
      text: READ_FILE_GUIDANCE,
    })
  }
}
