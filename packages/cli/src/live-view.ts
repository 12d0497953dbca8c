import type { Context } from 'cordis'
import type { SessionEvent } from '@bridle/session'
import { textOf, type Message, type StreamChunk, type ToolResultMessage } from '@bridle/llm'
import { oneLine, paint, type Io } from './terminal.js'

/** A short summary of a tool result: its line count and first line, or the error it reported. */
export function summarizeToolResult(message: ToolResultMessage): string {
  const block = message.content[0]
  const text = block?.type === 'tool-result' ? textOf(block.content) : ''
  const lines = text === '' ? 0 : text.split('\n').length
  const head = oneLine(text.split('\n')[0] ?? '', 80)
  const isError = block?.type === 'tool-result' && block.isError === true
  return `${isError ? 'error: ' : ''}${lines} line${lines === 1 ? '' : 's'}${head ? ` · ${head}` : ''}`
}

/**
 * Streams one session to the terminal as its events commit: answer text as it arrives, reasoning dimmed,
 * each tool call with a short result summary. Returns the listener's disposer.
 */
export function attachLiveView(ctx: Context, sessionId: string, io: Io): () => void {
  const p = paint(io)
  let mode: 'none' | 'text' | 'reasoning' = 'none'
  const breakLine = () => {
    if (mode !== 'none') io.out('\n')
    mode = 'none'
  }
  const onChunk = (chunk: StreamChunk) => {
    if (chunk.type === 'text-delta') {
      if (mode === 'reasoning') breakLine()
      mode = 'text'
      io.out(chunk.text)
    } else if (chunk.type === 'reasoning-delta') {
      if (mode === 'text') breakLine()
      mode = 'reasoning'
      io.out(p.dim(chunk.text))
    }
  }
  // Steps whose request is a summary (compaction): their chunks are the summary, not the answer.
  const summarySteps = new Set<string>()
  return ctx.on('session/event', (session: { id: string }, event: SessionEvent) => {
    if (session.id !== sessionId) return
    const data = event.data as Record<string, unknown>
    switch (event.type) {
      case 'request/compaction':
        breakLine()
        summarySteps.add(`${data.turn}.${data.step}`)
        io.err(`bridle: compacting the history: summarizing ${data.count} message${data.count === 1 ? '' : 's'}\n`)
        break
      case 'user/message':
        if (typeof event.surfaceOp === 'object') io.err(`bridle: history compacted: ${p.dim(oneLine(textOf((data as unknown as Message).content), 100))}\n`)
        break
      case 'assistant/chunk':
        if (!summarySteps.has(`${data.turn}.${data.step}`)) onChunk(data.chunk as StreamChunk)
        break
      case 'tool/call':
        breakLine()
        io.out(`${p.cyan('→')} ${p.bold(String(data.name))} ${p.dim(oneLine(String(data.arguments), 120))}\n`)
        break
      case 'tool/result':
        breakLine()
        io.out(`  ${p.dim('←')} ${summarizeToolResult(data.message as ToolResultMessage)}\n`)
        break
      case 'turn/end':
        breakLine()
        break
    }
  })
}
