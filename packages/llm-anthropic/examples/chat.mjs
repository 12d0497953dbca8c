// Streams one answer through @bridle/llm-anthropic. Build first (`pnpm build`), then:
//   node examples/chat.mjs "your prompt"
//   ANTHROPIC_API_KEY=sk-ant-... node examples/chat.mjs "your prompt"     (the Messages API; BRIDLE_MODEL picks the model)
// Without ANTHROPIC_API_KEY it answers from an offline loopback Messages server, clearly labeled.
import { Context } from 'cordis'
import { LlmRuntime, createUserMessage } from '@bridle/llm'
import * as llmAnthropic from '@bridle/llm-anthropic'
import { startMockServer, textAnswer } from '@bridle/llm-anthropic/testing'

const prompt = process.argv[2] ?? 'Say hello in five words.'
let mock
let config = {}
if (!process.env.ANTHROPIC_API_KEY) {
  mock = await startMockServer([
    { kind: 'sse', events: textAnswer(['(offline loopback server) ', 'Hello from a scripted Claude stream.']) },
  ])
  process.env.BRIDLE_EXAMPLE_KEY = 'sk-ant-offline-example'
  config = { baseURL: mock.url, apiKeyEnv: 'BRIDLE_EXAMPLE_KEY' }
}
const ctx = new Context()
ctx.plugin(LlmRuntime)
ctx.plugin(llmAnthropic, config)

for await (const chunk of ctx.llm.stream({
  provider: 'anthropic',
  model: process.env.BRIDLE_MODEL ?? 'claude-sonnet-4-5',
  messages: [createUserMessage(prompt)],
})) {
  if (chunk.type === 'text-delta') process.stdout.write(chunk.text)
  if (chunk.type === 'usage') process.stdout.write(`\n[usage ${JSON.stringify(chunk.usage)}]`)
  if (chunk.type === 'finish') process.stdout.write(`\n[finish ${chunk.reason.kind}]\n`)
}
await mock?.close()
