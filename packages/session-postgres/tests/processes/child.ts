/**
 * The child process of the crash, fencing and delivery tests. argv[2] is a role, argv[3] its JSON config. It reports
 * facts on stdout, one per line, so the parent knows what was durable when it acted:
 *
 * - `ready <n>`: the agent is live over a session of n events (resumed or created);
 * - `durable <n>`: a checkpoint flush resolved: events 0..n-1 are durable (before a step, a model request, a tool);
 * - `error <err>` / `retry <err>`: a turn failed (e.g. the database went away) / a flush retry failed;
 * - `lost <err>`: this process lost its lease; it stops;
 * - `warn <text>`: a session-postgres warning;
 * - `final <n> <sha256>`: every event is flushed; the digest is over the events' JSON texts, one per line;
 * - `posted <i>`, `serving`, `done`.
 */
import { createHash } from 'node:crypto'
import { createUserMessage, type GenerateOptions, type StreamChunk } from '@bridle/llm'
import type { Session } from '@bridle/session'
import { SessionStore } from '@bridle/session'
import { Context, Logger } from 'cordis'
import { SessionPostgres } from '../../src/index.js'
import { AGENT, NOTE_TURNS, REPLY_TURNS, startWorker, type Worker } from '../worker.js'

const say = (line: string) => process.stdout.write(line + '\n')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

;(Logger.targets as unknown[]).push({
  record(record: { name: string; type: string; content: string }) {
    if (record.name === 'session-postgres' && record.type === 'warn') say(`warn ${record.content.replace(/\n/g, ' ')}`)
  },
})

interface WriterConfig {
  url: string
  schema: string
  session: string
  label: string
  prompts: number
  leaseMs?: number
  leaseWaitMs?: number
  delayMs?: number
}

type Listen = (name: string, listener: (...args: any[]) => unknown) => () => void

/** Reports the durable count each time a checkpoint let a step, a model request or a tool body start. */
function reportCheckpoints(ctx: Context, session: () => Session | undefined): void {
  const listen = ctx.on.bind(ctx) as unknown as Listen
  const durable = () => say(`durable ${session()?.events.length ?? 0}`)
  listen('agent/pre-step', async (_payload: unknown, next: () => unknown) => {
    durable()
    return next()
  })
  listen('tools/execute', async (_exec: unknown, next: () => unknown) => {
    durable()
    return next()
  })
  listen('llm/stream', (_options: GenerateOptions, next: () => AsyncIterable<StreamChunk>) => {
    durable()
    return next()
  })
}

async function writer(config: WriterConfig): Promise<void> {
  let session: Session | undefined
  const worker = await startWorker(
    {
      connectionString: config.url,
      schema: config.schema,
      poolSize: 2,
      leaseMs: config.leaseMs ?? 30_000,
      leaseWaitMs: config.leaseWaitMs ?? 0,
      writeBatchMaxDelayMs: config.delayMs ?? 2,
      ownerId: `${config.label}/${process.pid}`,
    },
    { turns: NOTE_TURNS },
  )
  const ctx = worker.ctx
  let lastError: unknown
  ctx.on('agent/error', ({ error }: { error: unknown }) => {
    lastError = error
    say(`error ${String(error).replace(/\n/g, ' ')}`)
  })
  reportCheckpoints(ctx, () => session)
  const stored = (await worker.persistence.list()).some((header) => header.id === config.session)
  const agent = stored
    ? await ctx.agentLoop.resume(config.session, AGENT)
    : ctx.agentLoop.create({ ...AGENT, sessionId: config.session })
  session = agent.session
  say(`ready ${agent.session.events.length}`)
  for (let k = 1; k <= config.prompts; k++) {
    lastError = undefined
    agent.followup(createUserMessage(`${config.label}: note ${k}`))
    await agent.whenIdle()
    if (lastError === undefined) continue
    if (
      (lastError as { name?: unknown }).name === 'SessionLeaseLostError' ||
      String(lastError).includes('SessionLeaseLostError')
    ) {
      say(`lost ${String(lastError)}`)
      await worker.stop().catch(() => undefined)
      process.exit(3)
    }
    // The database went away: keep the events, retry until they are written, then go on with the next prompt.
    for (;;) {
      try {
        await ctx.sessions.flush(agent.session)
        break
      } catch (error) {
        if ((error as { name?: unknown }).name === 'SessionLeaseLostError') {
          say(`lost ${String(error)}`)
          process.exit(3)
        }
        say(`retry ${String(error).replace(/\n/g, ' ')}`)
        await sleep(100)
      }
    }
  }
  await ctx.sessions.flush(agent.session)
  const digest = createHash('sha256')
  for (const event of agent.session.events) digest.update(JSON.stringify(event) + '\n')
  say(`final ${agent.session.events.length} ${digest.digest('hex')}`)
  await worker.stop()
}

interface PosterConfig {
  url: string
  schema: string
  sender: string
  sessions: string[]
  count: number
}

async function poster(config: PosterConfig): Promise<void> {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(SessionPostgres, { connectionString: config.url, schema: config.schema, poolSize: 2 })
  const persistence = ctx.get('sessionPersistence') as SessionPostgres
  await persistence.ready
  for (let i = 0; i < config.count; i++) {
    const id = config.sessions[i % config.sessions.length]!
    const message = { ...createUserMessage(`${config.sender} says ${i}`), id: `${config.sender}-${i}` }
    await persistence.post(id, message as never, i % 2 === 0 ? 'next-turn' : 'next-step')
    if (i % 50 === 49) say(`posted ${i + 1}`)
  }
  ctx.registry.delete(SessionPostgres)
  await persistence.whenStopped()
  say('done')
}

interface ServerConfig {
  url: string
  schema: string
  sessions: string[]
}

async function server(config: ServerConfig): Promise<void> {
  const worker: Worker = await startWorker(
    { connectionString: config.url, schema: config.schema, poolSize: 4, writeBatchMaxDelayMs: 5 },
    { turns: REPLY_TURNS },
  )
  for (const id of config.sessions) {
    const agent = worker.ctx.agentLoop.create({ ...AGENT, sessionId: id })
    agent.followup(createUserMessage('hello'))
    await agent.whenIdle()
    await worker.ctx.sessions.flush(agent.session)
  }
  say('serving')
  await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()))
  for (const agent of worker.ctx.agentLoop.list()) await agent.whenIdle()
  await worker.stop()
  say('done')
}

const [role, raw] = process.argv.slice(2)
const run = role === 'writer' ? writer : role === 'poster' ? poster : role === 'server' ? server : undefined
if (run === undefined || raw === undefined) {
  process.stderr.write('usage: child writer|poster|server <json config>\n')
  process.exit(2)
}
run(JSON.parse(raw) as never).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`child failed: ${String((error as Error)?.stack ?? error)}\n`)
    process.exit(1)
  },
)
