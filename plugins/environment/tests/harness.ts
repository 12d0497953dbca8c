import { renderContextSnapshot, renderPrompt, SystemPrompt } from '@bridle/system-prompt'
import { Context } from 'cordis'

/** The deployment these tests configure. */
export const prod = { environment: 'production', region: 'eu-west-1' }

/** A context with only the system prompt (and `persona`), ready for the plugin under test. */
export function load(persona = '') {
  const root = new Context()
  root.plugin(SystemPrompt, { persona })
  return root
}

/** One assembly (for `scope`, if given) with its rendered system prompt and runtime-context snapshot. */
export async function view(root: Context, scope?: object) {
  const assembly = await root.systemPrompt.assemble(scope === undefined ? {} : { scope })
  return { assembly, system: renderPrompt(assembly), snapshot: renderContextSnapshot(assembly) }
}
