import type { Context } from 'cordis'
import { renderPrompt } from '@bridle/system-prompt'
import type { SessionHeader } from '@bridle/session'
import type { KnownSection } from './sections.js'

/**
 * The app's global sections rendered now, used to put names on a logged system string. Variables read
 * `context.agent`, so a stand-in carrying the session's header and route is passed; a section that cannot
 * render without the live agent is skipped (its paragraph then shows unnamed). When a provider cannot run
 * without the live agent, the whole assembly fails and no section is named: the step is still shown.
 */
export async function knownSections(
  ctx: Context,
  header: SessionHeader,
  route: { provider: string; model: string },
): Promise<KnownSection[]> {
  const agent = { id: header.id, options: route, session: { id: header.id, header } }
  let assembly: Awaited<ReturnType<Context['systemPrompt']['assemble']>>
  try {
    assembly = await ctx.systemPrompt.assemble({ agent } as never)
  } catch {
    return []
  }
  const known: KnownSection[] = []
  for (const section of assembly.sections) {
    try {
      known.push({ name: section.name, text: renderPrompt({ sections: [section], variables: assembly.variables }) })
    } catch {
      // needs a value only the live agent had; leave this section unnamed
    }
  }
  return known
}
