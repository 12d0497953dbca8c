/**
 * A model for the compaction scenarios: the loopback OpenAI-compatible server of `@bridle/llm-openai/testing`,
 * answering every request from its content and reporting usage the way a provider does — prompt tokens counted with
 * a real BPE tokenizer (`gpt-tokenizer`, o200k) over what it received, and cached prompt tokens for the longest
 * prefix (tools, then whole messages) it has served before, as DeepSeek reports them (`prompt_cache_hit_tokens`).
 *
 * Conversation: a prompt `task N` gets 1–3 tool calls (`lookup`), one per request, then a text answer. A request
 * whose last message is the summary instruction gets a summary text.
 */
import { createHash } from 'node:crypto'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import {
  DONE,
  chunk,
  startMockServer,
  toolCallEvents,
  textEvents,
  type MockServer,
  type RecordedRequest,
} from '@bridle/llm-openai/testing'

interface WireMessage {
  role: string
  content?: string | null
  tool_calls?: { id: string; function: { name: string; arguments: string } }[]
  tool_call_id?: string
}

interface WireBody {
  messages: WireMessage[]
  tools?: unknown[]
  max_tokens?: number
}

/** What the server saw and answered for one request. */
export interface Served {
  readonly kind: 'conversation' | 'summary'
  readonly promptTokens: number
  readonly cachedTokens: number
  readonly messages: number
}

export interface LoopbackModel {
  readonly server: MockServer
  readonly served: Served[]
  close(): Promise<void>
}

/** Tokens framing each message in a chat template (role markers and separators). */
const PER_MESSAGE = 4

/** A deterministic text of about `chars` characters. */
export function words(label: string, chars: number, salt = 0): string {
  const pool = [
    'river',
    'stone',
    'lamp',
    'orbit',
    'cedar',
    'signal',
    'harbor',
    'prism',
    'velvet',
    'quartz',
    'meadow',
    'engine',
  ]
  let out = label
  for (let i = salt; out.length < chars; i++) out += ' ' + pool[(i * 7 + salt) % pool.length] + (i % 5 === 0 ? '.' : '')
  return out.slice(0, chars)
}

/** How many tool rounds task `n` takes (1–3, fixed per task). */
export const roundsOf = (n: number): number => 1 + ((n * 5) % 3)

/**
 * Starts the model. `instructions` identifies summary requests (their last message); `summaryChars` sizes the
 * summaries; `answerChars` the final answers.
 */
export async function startLoopbackModel(options: {
  instructions: string
  summaryChars: number
  answerChars: number
}): Promise<LoopbackModel> {
  const tokensOf = new Map<string, number>()
  const count = (text: string): number => {
    let n = tokensOf.get(text)
    if (n === undefined) tokensOf.set(text, (n = encode(text).length))
    return n
  }
  const seenPrefixes = new Set<string>()
  const served: Served[] = []

  const respond = (request: RecordedRequest) => {
    const body = request.body as WireBody
    const toolsText = JSON.stringify(body.tools ?? [])
    const keys = body.messages.map((m) => JSON.stringify(m))
    // prompt tokens, and the longest prefix served before (a provider's prefix cache at message granularity)
    let prompt = count(toolsText)
    let cached = 0
    let hash = createHash('sha256').update(toolsText).digest('hex')
    let prefixHeld = true
    for (const key of keys) {
      const tokens = PER_MESSAGE + count(key)
      hash = createHash('sha256').update(hash).update(key).digest('hex')
      if (prefixHeld && seenPrefixes.has(hash)) cached = prompt + tokens
      else prefixHeld = false
      prompt += tokens
      seenPrefixes.add(hash)
    }
    const last = body.messages.at(-1)!
    const summary = last.role === 'user' && last.content === options.instructions
    served.push({
      kind: summary ? 'summary' : 'conversation',
      promptTokens: prompt,
      cachedTokens: cached,
      messages: keys.length,
    })
    const usage = { prompt_tokens: prompt, prompt_cache_hit_tokens: cached, prompt_cache_miss_tokens: prompt - cached }

    if (summary) {
      const text = words(`Summary (${keys.length - 1} messages):`, options.summaryChars, keys.length)
      return {
        kind: 'sse' as const,
        events: textEvents([text], { usage: { ...usage, completion_tokens: count(text) } }),
      }
    }
    // the task number of the last prompt, and how many tool results answer it so far
    let results = 0
    let task = 0
    for (let i = body.messages.length - 1; i >= 0; i--) {
      const m = body.messages[i]!
      if (m.role === 'tool') results++
      if (m.role === 'user') {
        const found = /task (\d+)/.exec(m.content ?? '')
        if (found) {
          task = Number(found[1])
          break
        }
      }
    }
    if (task > 0 && results < roundsOf(task)) {
      const args = JSON.stringify({ topic: `task ${task} part ${results + 1}` })
      return {
        kind: 'sse' as const,
        events: toolCallEvents([{ id: `call_${task}_${results + 1}`, name: 'lookup', argFragments: [args] }], {
          usage: { ...usage, completion_tokens: 20 },
        }),
      }
    }
    const text = words(`Answer to task ${task}:`, options.answerChars, task)
    return { kind: 'sse' as const, events: textEvents([text], { usage: { ...usage, completion_tokens: count(text) } }) }
  }

  const server = await startMockServer([], { respond })
  return { server, served, close: () => server.close() }
}

export { DONE, chunk }
