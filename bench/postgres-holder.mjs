// The lease holder of the takeover benchmark: writes a session, keeps its lease (1 s) alive, and waits to be killed.
import { Context } from 'cordis'

const [url, schema, id] = process.argv.slice(2)
const session = await import(new URL('../packages/session/dist/index.js', import.meta.url).href)
const { SessionPostgres } = await import(new URL('../packages/session-postgres/dist/index.js', import.meta.url).href)
const ctx = new Context()
ctx.plugin(session.SessionStore)
ctx.plugin(SessionPostgres, { connectionString: url, schema, leaseMs: 1_000, writeBatchMaxDelayMs: 5, poolSize: 2 })
await ctx.get('sessionPersistence').ready
const s = ctx.sessions.create(id)
s.append('turn/start', { turn: 1 })
s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
await ctx.sessions.flush(s)
process.stdout.write('holding\n')
setInterval(() => {}, 1 << 30)
