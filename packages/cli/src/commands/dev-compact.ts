import type { Agent, CompactionOutcome } from '@bridle/agent-loop'
import type { BootedApp } from '../boot.js'
import { EXIT } from '../errors.js'
import { paint, type Io } from '../terminal.js'

/** The dev line that compacts the history now instead of sending a prompt. */
export const COMPACT_LINE = '/compact'

/** One line saying what `agent.compact()` did. */
function describeCompactionOutcome(outcome: CompactionOutcome): string {
  switch (outcome.kind) {
    case 'compacted':
      return `compacted ${outcome.replacedMessages} message${outcome.replacedMessages === 1 ? '' : 's'} into a summary (turn ${outcome.turn}, checkpoint at seq ${outcome.checkpointSeq})`
    case 'failed':
      return `the compaction failed (${outcome.failure.code}: ${outcome.failure.message}); the history is unchanged`
    case 'skipped':
      return `nothing compacted: ${outcome.reason}`
  }
}

/** `/compact` in `bridle dev`: compacts through the loaded policy, flushes the session, and says what happened. */
export async function compactNow(booted: BootedApp, agent: Agent, io: Io): Promise<number> {
  const p = paint(io)
  const outcome = await agent.compact()
  await agent.whenIdle()
  await booted.ctx.sessions.flush(agent.session)
  const text = `bridle dev: ${describeCompactionOutcome(outcome)}\n`
  io.err(outcome.kind === 'failed' ? p.red(text) : text)
  return outcome.kind === 'failed' ? EXIT.failure : EXIT.ok
}
