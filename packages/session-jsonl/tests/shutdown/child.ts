/**
 * The shutdown test's child: appends three complete turns to a JSONL session (a long write-behind window, so nothing
 * is on disk yet), awaits `shutdown(ctx)` and exits with `process.exit(0)`, which skips `beforeExit`.
 * argv: <root>. Prints `appended <n>` before it shuts down.
 */
import { shutdown } from '@bridle/scope'
import { SessionStore } from '@bridle/session'
import { Context } from 'cordis'
import { SessionJsonl } from '../../src/index.js'
import { scriptedAppends } from '../fixtures/script.js'

const [root] = process.argv.slice(2)
if (root === undefined) throw new Error('usage: child <root>')

const ctx = new Context()
ctx.plugin(SessionStore)
ctx.plugin(SessionJsonl, { root, writeBatchMaxDelayMs: 60_000 })
const session = ctx.sessions.create('shutdown')
for (const a of scriptedAppends(3)) session.append(a.type, a.data, a.opts)
process.stdout.write(`appended ${session.seq}\n`)
await shutdown(ctx)
process.exit(0)
