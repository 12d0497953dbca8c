// A worker process of the cluster benchmark: an agent app over session-postgres with the cluster worker, answering
// every turn with one scripted model call that waits a fixed latency before its first chunk. Prints `ready`.
import { Context } from 'cordis'
import { agentLoop, llm, session, systemPrompt, tools } from './lib.mjs'

const dist = (path) => import(new URL(`../${path}/dist/index.js`, import.meta.url).href)
const [{ SessionPostgres }, { ClusterWorker }, { ScriptedModel }, { shutdown }] = await Promise.all([
  dist('packages/session-postgres'),
  dist('packages/cluster'),
  dist('plugins/scripted-model'),
  dist('packages/scope'),
])
const config = JSON.parse(process.argv[2])
const ctx = new Context()
ctx.plugin(llm.LlmRuntime)
ctx.plugin(systemPrompt.SystemPrompt, { persona: 'You answer in one line.' })
ctx.plugin(session.SessionStore)
ctx.plugin(tools.ToolRegistry)
ctx.plugin(SessionPostgres, {
  connectionString: config.url,
  schema: config.schema,
  poolSize: 4,
  leaseMs: 5_000,
  leaseWaitMs: 10_000,
  writeBatchMaxDelayMs: 5,
})
ctx.plugin(agentLoop.AgentLoop, { verifyRequests: false })
ctx.plugin(ScriptedModel, { turns: [{ steps: [{ text: 'Here is the answer you asked for.' }] }] })
ctx.on('llm/stream', (_options, next) =>
  (async function* () {
    await new Promise((resolve) => setTimeout(resolve, config.latencyMs))
    yield* next()
  })(),
)
ctx.plugin(ClusterWorker, {
  queueSchema: config.queueSchema,
  concurrency: config.concurrency,
  pollingIntervalSeconds: 1,
  agent: { provider: 'scripted', model: 'scripted-demo' },
})
await new Promise((resolve) => setTimeout(resolve, 0))
const worker = ctx.get('clusterWorker')
await worker.ready
process.stdout.write('ready\n')
// The benchmark asks for the CPU time used so far with a line on stdin (one answer a line).
process.stdin.on('data', (chunk) => {
  for (const _ of String(chunk).matchAll(/\n/g)) {
    const used = process.cpuUsage()
    process.stdout.write(`cpu ${(used.user + used.system) / 1000}\n`)
  }
})
process.once('SIGTERM', async () => {
  await worker.drain(10_000)
  await shutdown(ctx)
  process.exit(0)
})
