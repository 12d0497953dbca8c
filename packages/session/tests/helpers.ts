import {
  callId,
  createAssistantMessage,
  createToolResultMessage,
  createUserMessage,
  type AssistantMessage,
  type ContentBlock,
  type Message,
  type ToolResultMessage,
  type UserMessage,
} from '@bridle/llm'
import type { Session, EpochHeader } from '../src/index.js'

export const user = (text: string): UserMessage => createUserMessage(text)

export const assistant = (text: string | ContentBlock[]): AssistantMessage =>
  createAssistantMessage({
    content: typeof text === 'string' ? (text === '' ? [] : [{ type: 'text', text }]) : text,
    source: { provider: 'p', model: 'm' },
  })

export const toolCallMessage = (id: string, name = 'read_file', args = '{}'): AssistantMessage =>
  createAssistantMessage({
    content: [{ type: 'tool-call', id: callId(id), name, arguments: args }],
    source: { provider: 'p', model: 'm' },
  })

export const toolResult = (id: string, text: string): ToolResultMessage =>
  createToolResultMessage({ callId: callId(id), content: text })

export const header = (over: Partial<EpochHeader> = {}): EpochHeader => ({
  config: { provider: 'p', model: 'm' },
  ...over,
})

/** Appends a complete turn: user prompt, one step with chunks and an assistant answer. Returns the seqs used. */
export function appendSimpleTurn(session: Session, turn: number, prompt: string, answer: string) {
  session.append('turn/start', { turn })
  session.append('step/start', { turn, step: 1 })
  const u = session.append('user/message', user(prompt), { surfaceOp: 'append' })
  session.append('request/header', { header: header(), reason: turn === 1 ? 'initial' : 'change' })
  const chunk = session.append('assistant/chunk', {
    turn,
    step: 1,
    chunk: { type: 'text-delta', index: 0, text: answer },
  })
  const a = session.append(
    'assistant/message',
    { turn, step: 1, message: assistant(answer) },
    { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
  )
  session.append('step/end', { turn, step: 1 })
  session.append('turn/end', { turn, reason: { kind: 'completed' } })
  return { user: u.seq, assistant: a.seq }
}

/** Captures warnings written through the cordis logger while `fn` runs. */
export { Logger } from 'cordis'

/**
 * Counts the messages a `RequestDigester` hashes, by watching it work rather than reading a counter of its own:
 * hashing a message reads its keys once (canonical JSON sorts them), so `wrap` hands out one proxy per message — the
 * same proxy every time, so the digester still recognizes a message it saw — and `hashed()` counts the key reads.
 */
export function hashedMessages() {
  let hashed = 0
  const proxies = new WeakMap<Message, Message>()
  const wrap = (messages: readonly Message[]): Message[] =>
    messages.map((message) => {
      let proxy = proxies.get(message)
      if (proxy === undefined) {
        proxy = new Proxy(message, {
          ownKeys(target) {
            hashed++
            return Reflect.ownKeys(target)
          },
        })
        proxies.set(message, proxy)
      }
      return proxy
    })
  return { wrap, hashed: () => hashed }
}
