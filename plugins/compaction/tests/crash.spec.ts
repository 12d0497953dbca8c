/**
 * Crash safety of a compaction, with real processes: a child runs an agent with JSONL persistence until its first
 * compaction and is killed with SIGKILL at many points inside it — after the `request/compaction` record, the digest,
 * each summary chunk, the checkpoint, and while the next step is sent — each with and without a few extra
 * milliseconds for the write-behind. Every stored log then resumes to a consistent state: either before the replace
 * (all the old messages, no checkpoint) or after it (the checkpoint in place of exactly the messages its summary
 * request carried), never in between — for every compaction in the log, since a late kill can land in a later one; every digest in it verifies; and the resumed agent continues, compacting then
 * if it still has to.
 */
import { fileURLToPath } from 'node:url'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AgentLoop } from '@bridle/agent-loop'
import { createUserMessage, LlmRuntime, type Message } from '@bridle/llm'
import {
  deriveEventMessage,
  isReplacementSurfaceEvent,
  SessionStore,
  verifyDigests,
  type AnySessionEvent,
  type CompactionRequestRecord,
} from '@bridle/session'
import { SessionJsonl } from '@bridle/session-jsonl'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { Compaction } from '../src/index.js'
import { buildChild } from '../../../tests/support/build-child.js'
import { bootModel, CRASH_COMPACTION, prompt } from './crash/model.js'

let bundle: string
const roots: string[] = []
beforeAll(async () => {
  bundle = await buildChild(fileURLToPath(new URL('./crash/child.ts', import.meta.url)))
}, 120_000)
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})

/** Runs the child and SIGKILLs it `extraMs` after its `line`-th event line from the compaction on. */
function runChild(root: string, line: number, extraMs: number): Promise<{ lines: string[]; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, root, 'crash'], { stdio: ['ignore', 'pipe', 'pipe'] })
    const lines: string[] = []
    let buffer = ''
    let stderr = ''
    let armed = false
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8')
      let newline: number
      while ((newline = buffer.indexOf('\n')) >= 0) {
        lines.push(buffer.slice(0, newline))
        buffer = buffer.slice(newline + 1)
        if (!armed && lines.length >= line) {
          armed = true
          if (extraMs === 0) child.kill('SIGKILL')
          else setTimeout(() => child.kill('SIGKILL'), extraMs)
        }
      }
    })
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (code !== null && code !== 0) reject(new Error(`child exited ${code}: ${stderr}`))
      else resolve({ lines, killed: signal === 'SIGKILL' })
    })
  })
}

function bootParent(root: string): Context {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(LlmRuntime)
  ctx.plugin(SystemPrompt, {})
  ctx.plugin(ToolRegistry)
  ctx.plugin(AgentLoop, {})
  ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 1 })
  ctx.plugin(Compaction, CRASH_COMPACTION)
  bootModel(ctx, { summaryDelayMs: 0 })
  return ctx
}

const messagesOf = (events: readonly AnySessionEvent[], seqs: readonly number[]): Message[] =>
  seqs.map((s) => deriveEventMessage(events[s]!)).filter((m): m is Message => m !== null)

/** Every append-origin message, in log order: the history as it would be without any replace. */
const appended = (events: readonly AnySessionEvent[]): Message[] =>
  messagesOf(
    events,
    events.filter((e) => e.surfaceOp === 'append').map((e) => e.seq),
  )

// the 1st line is `request/compaction`, the 2nd its digest, then 14 summary chunks, the checkpoint (17th), step/end,
// and the next step; `done` comes after 8 more turns
const POINTS: [line: number, extraMs: number][] = [
  [1, 0],
  [1, 3],
  [2, 0],
  [2, 3],
  [3, 0],
  [6, 0],
  [9, 2],
  [14, 0],
  [16, 0],
  [16, 3],
  [17, 0],
  [17, 1],
  [17, 4],
  [18, 0],
  [19, 0],
  [21, 2],
  [24, 0],
]

describe('a process killed during a compaction', () => {
  const seen = { before: 0, after: 0 }

  it.each(POINTS)(
    'killed after event line %i (+%i ms) resumes to a consistent log and continues',
    async (line, extraMs) => {
      const root = mkdtempSync(join(tmpdir(), 'bridle-compaction-crash-'))
      roots.push(root)
      const run = await runChild(root, line, extraMs)
      expect(run.killed).toBe(true)

      const ctx = bootParent(root)
      await new Promise((resolve) => setTimeout(resolve, 0))
      const agent = await ctx.agentLoop.resume('crash', { provider: 'mock', model: 'm1' })
      const events = agent.session.events
      // A starved parent can read the child's lines late, so the kill may land in a later compaction than the one it
      // aimed at: replay every compaction in the log. Each replaces the first `count` messages of the surface as it
      // stood then (and cites exactly them); only the last one may lack its checkpoint. (A kill right after the child
      // appended the record may also leave no record at all: the write-behind had not written it yet.)
      const records = events.filter((e) => e.type === 'request/compaction')
      const checkpointOf = (record: AnySessionEvent) =>
        events.find((e) => isReplacementSurfaceEvent(e) && e.sourceEventSeqs!.includes(record.seq))
      for (const record of records.slice(0, -1)) expect(checkpointOf(record)).toBeDefined()
      let surface: Message[] = []
      for (const event of events) {
        if (event.surfaceOp === 'append') surface.push(...messagesOf(events, [event.seq]))
        else if (isReplacementSurfaceEvent(event)) {
          const record = events[event.sourceEventSeqs!.find((s) => events[s]!.type === 'request/compaction')!]!
          const count = (record.data as CompactionRequestRecord).count
          const replaced = messagesOf(
            events,
            event.sourceEventSeqs!.filter(
              (s) => events[s]!.type.endsWith('message') || events[s]!.type === 'tool/result',
            ),
          )
          expect(replaced).toEqual(surface.slice(0, count))
          surface = [event.data as Message, ...surface.slice(count)]
        }
      }
      const derived = agent.session.deriveMessages()
      expect(derived).toEqual(surface)
      // before the (last) replace: no checkpoint cites its record; after it: the checkpoint leads the history
      const last = records.length > 0 ? checkpointOf(records.at(-1)!) : undefined
      if (last === undefined) seen.before++
      else {
        seen.after++
        expect(derived[0]).toBe(events[last.seq]!.data)
      }
      // every request the log records, the interrupted summary request included, verifies
      expect(verifyDigests(events).filter((v) => !v.ok)).toEqual([])
      // the interrupted turn was closed by recovery (unless the kill came after its turn/end)
      const ends = events
        .filter((e) => e.type === 'turn/end')
        .map((e) => (e.data as { reason: { kind: string } }).reason.kind)
      expect(ends.filter((k) => k !== 'completed' && k !== 'interrupted')).toEqual([])

      // the resumed agent continues; if the compaction did not land, it compacts now
      for (let n = 100; n < 103; n++) {
        agent.followup(createUserMessage(prompt(n)))
        await agent.whenIdle()
        expect((agent.session.events.at(-1)!.data as { reason: { kind: string } }).reason.kind).toBe('completed')
      }
      expect(agent.session.events.some((e) => isReplacementSurfaceEvent(e))).toBe(true)
      expect(verifyDigests(agent.session.events).filter((v) => !v.ok)).toEqual([])
      const lastRequest = agent.session.deriveMessages()
      expect(lastRequest.length).toBeLessThan(appended(agent.session.events).length)
      await agent.dispose()
      await ctx.scope.dispose()
    },
  )

  it('landed both before and after the replace across the points', () => {
    expect(seen.before).toBeGreaterThan(2)
    expect(seen.after).toBeGreaterThan(2)
  })
})
