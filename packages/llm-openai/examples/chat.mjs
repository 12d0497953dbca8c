// Streams one answer through @bridle/llm-openai. Build first (`pnpm build`), then:
//   node examples/chat.mjs "your prompt"
// Model selection (the same variables `bridle run` reads):
//   BRIDLE_BASE_URL + BRIDLE_MODEL [+ BRIDLE_API_KEY]  any OpenAI-compatible server (Ollama, llama.cpp, vLLM, OpenAI)
//   DEEPSEEK_API_KEY [+ BRIDLE_MODEL]                   DeepSeek (default model deepseek-chat)
//   neither                                             an offline loopback mock server, clearly labeled
import { Context } from 'cordis'
import { LlmRuntime, createUserMessage } from '@bridle/llm'
import * as llmOpenai from '@bridle/llm-openai'
import { startMockServer, textEvents } from '@bridle/llm-openai/testing'

const prompt = process.argv[2] ?? 'Say hello in five words.'
let mock
let config
let model
if (process.env.BRIDLE_BASE_URL) {
  if (!process.env.BRIDLE_MODEL) throw new Error('BRIDLE_MODEL must name the model served at BRIDLE_BASE_URL')
  config = {
    provider: 'openai-compatible',
    displayName: 'OpenAI-compatible',
    baseURL: process.env.BRIDLE_BASE_URL,
    apiKeyEnv: process.env.BRIDLE_API_KEY ? 'BRIDLE_API_KEY' : null,
    models: [{ id: process.env.BRIDLE_MODEL, contextWindow: 32768 }],
  }
  model = process.env.BRIDLE_MODEL
} else if (process.env.DEEPSEEK_API_KEY) {
  config = {}
  model = process.env.BRIDLE_MODEL ?? 'deepseek-chat'
} else {
  mock = await startMockServer([
    { kind: 'sse', events: textEvents(['[offline mock] ', 'Hello from the loopback server.']) },
  ])
  config = { provider: 'mock', baseURL: mock.url, apiKeyEnv: null }
  model = 'mock'
}

const ctx = new Context()
ctx.plugin(LlmRuntime)
ctx.plugin(llmOpenai, config)
const provider = llmOpenai.Config(config).provider
console.error(`model ${provider}/${model} via ${llmOpenai.Config(config).baseURL}`)

for await (const chunk of ctx.llm.stream({ provider, model, messages: [createUserMessage(prompt)] })) {
  if (chunk.type === 'reasoning-delta') process.stderr.write(chunk.text)
  if (chunk.type === 'text-delta') process.stdout.write(chunk.text)
  if (chunk.type === 'usage') console.error(`\nusage: ${JSON.stringify(chunk.usage)}`)
  if (chunk.type === 'finish') {
    const reason = chunk.reason
    console.error(
      reason.kind === 'error' || reason.kind === 'aborted'
        ? `failed: ${reason.failure.code}: ${reason.failure.message}`
        : `finish: ${reason.kind}`,
    )
    if (reason.kind === 'error' || reason.kind === 'aborted') process.exitCode = 1
  }
}
await mock?.close()
