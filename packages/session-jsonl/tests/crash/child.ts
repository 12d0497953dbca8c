/**
 * The crash-test child process. It writes a real session through `SessionStore` + `SessionJsonl` (with the durability
 * checkpoints dispatched through the real `agent/pre-step` and `tools/execute` waterfalls) and reports progress on
 * stdout, one line per fact, so the parent knows what was durable when it sent SIGKILL:
 *
 * - `flushed <n>`: a flush barrier resolved; events 0..n-1 are durable;
 * - `tool-started <seq>`: a tool body started after its `tool/call` (seq) passed the checkpoint;
 * - `done <n>`: every event was flushed.
 *
 * argv: <root> <turns> <writeBatchMaxDelayMs>
 */
import { waterfall } from '@bridle/scope'
import { SessionStore } from '@bridle/session'
import { Context } from 'cordis'
import { SessionJsonl } from '../../src/index.js'
import { scriptedAppends } from '../fixtures/script.js'

const [root, turnsArg, delayArg] = process.argv.slice(2)
if (root === undefined) throw new Error('usage: child <root> <turns> <delayMs>')
const turns = Number(turnsArg ?? '3')
const delay = Number(delayArg ?? '1')

const ctx = new Context()
ctx.plugin(SessionStore)
ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: delay })
const session = ctx.sessions.create('crash', { meta: { cwd: root } })
const run = waterfall as unknown as (
  c: Context,
  t: unknown,
  n: string,
  p: unknown,
  f: () => unknown,
) => Promise<unknown>
const say = (line: string) => process.stdout.write(line + '\n')

async function main(): Promise<void> {
  const script = scriptedAppends(turns)
  for (let i = 0; i < script.length; i++) {
    const a = script[i]!
    if (a.checkpointBefore) {
      if (a.type === 'tool/result') {
        const callSeq = session.seq - 1
        await run(ctx, undefined, 'tools/execute', { agent: { session } }, () => say(`tool-started ${callSeq}`))
      } else {
        await run(ctx, undefined, 'agent/pre-step', { agent: { session } }, () => undefined)
      }
      say(`flushed ${session.seq}`)
    }
    session.append(a.type, a.data, a.opts)
    // Yield to the event loop now and then so write-behind timers fire between appends.
    if (i % 3 === 0) await new Promise((resolve) => setImmediate(resolve))
  }
  await ctx.sessions.flush(session)
  say(`done ${session.seq}`)
}

main().catch((error: unknown) => {
  process.stderr.write(`child failed: ${String(error)}\n`)
  process.exit(1)
})
