/**
 * The exit-test child process: it starts one call against the parent's mock server, ends it the way
 * `scenario` says, prints the call's finish reason as one JSON line, and then simply returns. The parent
 * checks that the process exits on its own: a retry timer, a watchdog or a socket left behind would keep
 * it alive.
 *
 * argv: <mock url> <scenario>
 * - `cancel-backoff` / `dispose-backoff`: the first answer is a 429 with a 40 s Retry-After; the call is
 *   cancelled (or its route disposed) while the retry wait runs;
 * - `cancel-body` / `dispose-body` / `consumer-return`: the body hangs after one delta; the call is
 *   cancelled, the plugin disposed, or the consumer stops reading.
 */
import { LlmRuntime, createUserMessage, type FinishReason } from '@bridle/llm'
import { Context } from 'cordis'
import * as llmOpenai from '../../src/index.js'
import { OpenAICompatAdapter, resolveConfig } from '../../src/index.js'
import { abortableSleep } from '@bridle/llm/adapter-kit'

const [url, scenario] = process.argv.slice(2)
if (url === undefined || scenario === undefined) throw new Error('usage: child <url> <scenario>')
process.env.BRIDLE_CHILD_KEY = 'sk-child-0123456789'
const route = { provider: 'mock', baseURL: url, apiKeyEnv: 'BRIDLE_CHILD_KEY', maxRetries: 1 }

const ctx = new Context()
ctx.plugin(LlmRuntime)
const controller = new AbortController()
let stop: () => void

if (scenario.endsWith('-backoff')) {
  // the adapter with a clock that says when the retry wait starts; the wait itself is the real one
  const adapter = new OpenAICompatAdapter(resolveConfig(route), {
    sleep: (ms, signal) => {
      queueMicrotask(() => stop())
      return abortableSleep(ms, signal)
    },
    random: Math.random,
    now: Date.now,
  })
  ctx.llm.registerAdapter(['mock'], adapter)
  stop = scenario === 'cancel-backoff' ? () => controller.abort() : () => adapter.dispose()
} else {
  const fork = ctx.plugin(llmOpenai, route)
  stop = scenario === 'cancel-body' ? () => controller.abort() : () => fork.dispose()
}

let finish: FinishReason | undefined
const options = { provider: 'mock', model: 'm', messages: [createUserMessage('hi')], signal: controller.signal }
for await (const chunk of ctx.llm.stream(options)) {
  if (chunk.type === 'text-delta') {
    if (scenario === 'consumer-return') break
    stop()
  }
  if (chunk.type === 'finish') finish = chunk.reason
}
process.stdout.write(`${JSON.stringify({ finish: finish ?? 'consumer stopped' })}\n`)
