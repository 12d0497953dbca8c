/**
 * The crash-test child: an agent with `@bridle/plugin-compaction` and JSONL persistence over an in-process model that
 * reports usage for what it received and streams its summaries slowly (one chunk every few milliseconds). It runs
 * turns until its first compaction and reports, one line per fact, every session event from the compaction step's
 * start (`event <seq> <type>`), so the parent can kill it at a chosen point inside the compaction.
 *
 * argv: <root> <session id>
 */
import { Context } from 'cordis'
import { AgentLoop } from '@bridle/agent-loop'
import { createUserMessage, LlmRuntime } from '@bridle/llm'
import { Compaction } from '@bridle/plugin-compaction'
import { SessionStore } from '@bridle/session'
import { SessionJsonl } from '@bridle/session-jsonl'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { bootModel, CRASH_COMPACTION, prompt } from './model.js'

const [root, id] = process.argv.slice(2)
if (root === undefined || id === undefined) throw new Error('usage: child <root> <session id>')
const say = (line: string) => process.stdout.write(line + '\n')

const ctx = new Context()
ctx.plugin(SessionStore)
ctx.plugin(LlmRuntime)
ctx.plugin(SystemPrompt, {})
ctx.plugin(ToolRegistry)
ctx.plugin(AgentLoop, {})
ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 2 })
ctx.plugin(Compaction, CRASH_COMPACTION)
bootModel(ctx, { summaryDelayMs: 4 })

let reporting = false
ctx.on('session/event', (_session, event) => {
  if (event.type === 'request/compaction') reporting = true
  if (reporting) say(`event ${event.seq} ${event.type}`)
})

async function main(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0))
  const agent = ctx.agentLoop.create({ provider: 'mock', model: 'm1', sessionId: id })
  for (let n = 1; n <= 40; n++) {
    agent.followup(createUserMessage(prompt(n)))
    await agent.whenIdle()
  }
  await ctx.sessions.flush(agent.session)
  say('done')
}

void main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
