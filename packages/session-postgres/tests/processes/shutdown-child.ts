/**
 * The shutdown test's child: appends three complete turns to a PostgreSQL session (a long write-behind window, so no
 * row is written yet), awaits `shutdown(ctx)` and exits with `process.exit(0)`.
 * argv: <connection string> <schema>. Prints `appended <n>` before it shuts down.
 */
import { scriptedAppends } from '@bridle/persistence-conformance/script'
import { shutdown } from '@bridle/scope'
import { SessionStore } from '@bridle/session'
import { Context } from 'cordis'
import { SessionPostgres } from '../../src/index.js'

const [connectionString, schema] = process.argv.slice(2)
if (connectionString === undefined || schema === undefined) throw new Error('usage: shutdown-child <url> <schema>')

const ctx = new Context()
ctx.plugin(SessionStore)
ctx.plugin(SessionPostgres, { connectionString, schema, writeBatchMaxDelayMs: 60_000 })
const session = ctx.sessions.create('shutdown')
for (const a of scriptedAppends(3)) session.append(a.type, a.data, a.opts)
process.stdout.write(`appended ${session.seq}\n`)
await shutdown(ctx)
process.exit(0)
