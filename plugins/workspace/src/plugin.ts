import type { PromptAssembly } from '@bridle/system-prompt'
import { configuredPlugin } from '@bridle/llm'
import type { Context } from 'cordis'
import { Config, type WorkspaceConfigInput } from './config.js'
import { cwdOf } from './cwd.js'
import { formatGitStatus, probeGit } from './git.js'
import {
  CWD_CONTEXT,
  CWD_CONTEXT_ORDER,
  GIT_CONTEXT,
  GIT_CONTEXT_ORDER,
  PATHS_GUIDANCE,
  PATHS_SECTION,
  PATHS_SECTION_ORDER,
} from './guidance.js'

/** The prompt variable this plugin fills. */
export const CWD_VARIABLE = 'cwd'

/**
 * `@bridle/plugin-workspace`: the runtime contexts `workspace:cwd` and `workspace:git`, the `{{cwd}}` variable and
 * the `workspace:paths` section. Load with `ctx.plugin(Workspace, config)`; through `agent.ctx` it applies to that
 * agent only. Everything it adds is removed when it unloads.
 *
 * `{{cwd}}` is filled by a `system-prompt/assemble` listener when no provider gave it a value, because
 * `@bridle/agent-loop` already registers a global `cwd` variable (a second registration would be a duplicate).
 */
export class Workspace extends configuredPlugin(Config) {
  static inject = ['systemPrompt']

  constructor(ctx: Context, config?: WorkspaceConfigInput | null) {
    super(ctx, config)
    ctx.systemPrompt.context({
      name: CWD_CONTEXT,
      order: CWD_CONTEXT_ORDER,
      text: (c) => `cwd: ${cwdOf(c, this.config.defaultCwd)}`,
    })
    if (this.config.git) {
      ctx.systemPrompt.context({
        name: GIT_CONTEXT,
        order: GIT_CONTEXT_ORDER,
        text: (c) => {
          const status = probeGit(cwdOf(c, this.config.defaultCwd), {
            binary: this.config.gitBinary,
            timeoutMs: this.config.gitTimeoutMs,
            maxBytes: this.config.gitMaxBytes,
          })
          return status === undefined ? '' : formatGitStatus(status)
        },
      })
    }
    ctx.systemPrompt.section({ name: PATHS_SECTION, order: PATHS_SECTION_ORDER, text: PATHS_GUIDANCE })
    ctx.on('system-prompt/assemble', (assembly: PromptAssembly, context, next) => {
      if (assembly.variables[CWD_VARIABLE] === undefined)
        assembly.variables[CWD_VARIABLE] = cwdOf(context, this.config.defaultCwd)
      return next()
    })
  }
}
