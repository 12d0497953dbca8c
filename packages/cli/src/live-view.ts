import type { Context } from 'cordis'
import type { SessionEvent } from '@bridle/session'
import { textOf, type Message, type StreamChunk, type ToolResultMessage } from '@bridle/llm'
import { describeToolResult } from './inspect/describe.js'
import { StatusLine } from './status-line.js'
import { oneLine, paint, type Io } from './terminal.js'
import { formatTurnStats, turnStats } from './turn-stats.js'

export interface LiveViewOptions {
  /** `provider/model`, for the status line. */
  model: string
  /** The session's events (for the turn summary). */
  events: () => readonly SessionEvent[]
}

/**
 * Streams one session to the terminal as its events commit: answer text as it arrives, reasoning dimmed, each
 * tool call and a readable line for its result. On a TTY it also shows a status line while a request is in flight
 * (spinner, elapsed time, model, step) and a one-line summary after each turn; on a pipe, neither. Returns the
 * listener's disposer.
 */
export function attachLiveView(ctx: Context, sessionId: string, io: Io, options: LiveViewOptions): () => void {
  const p = paint(io)
  let turnStart = Date.now()
  const status = new StatusLine(io, () => turnStart)
  let step = 0
  const toolNames = new Map<string, string>()
  let mode: 'none' | 'text' | 'reasoning' = 'none'
  const write = (text: string) => {
    status.clear()
    io.out(text)
  }
  const breakLine = () => {
    if (mode !== 'none') write('\n')
    mode = 'none'
  }
  const waiting = (what: string) => {
    if (mode === 'none') status.show(`${options.model} · step ${step} · ${what}`)
  }
  const onChunk = (chunk: StreamChunk) => {
    if (chunk.type === 'text-delta') {
      if (mode === 'reasoning') breakLine()
      mode = 'text'
      write(chunk.text)
    } else if (chunk.type === 'reasoning-delta') {
      if (mode === 'text') breakLine()
      mode = 'reasoning'
      write(p.dim(chunk.text))
    } else if (chunk.type === 'tool-call-delta') waiting(`receiving a ${chunk.name ?? 'tool'} call`)
  }
  // Steps whose request is a summary (compaction): their chunks are the summary, not the answer.
  const summarySteps = new Set<string>()
  const off = ctx.on('session/event', (session: { id: string }, event: SessionEvent) => {
    if (session.id !== sessionId) return
    const data = event.data as Record<string, unknown>
    switch (event.type) {
      case 'request/compaction':
        breakLine()
        summarySteps.add(`${data.turn}.${data.step}`)
        status.clear()
        io.err(`bridle: compacting the history: summarizing ${data.count} message${data.count === 1 ? '' : 's'}\n`)
        waiting('waiting for the summary')
        break
      case 'user/message':
        if (typeof event.surfaceOp === 'object') {
          status.clear()
          io.err(`bridle: history compacted: ${p.dim(oneLine(textOf((data as unknown as Message).content), 100))}\n`)
        }
        break
      case 'turn/start':
        turnStart = event.time
        break
      case 'step/start':
        step = data.step as number
        waiting('preparing the request')
        break
      case 'request/digest':
        if (!summarySteps.has(`${data.turn}.${data.step}`)) waiting('waiting for the model')
        break
      case 'assistant/chunk':
        if (!summarySteps.has(`${data.turn}.${data.step}`)) onChunk(data.chunk as StreamChunk)
        break
      case 'tool/call':
        breakLine()
        toolNames.set(String(data.callId), String(data.name))
        write(`${p.cyan('→')} ${p.bold(String(data.name))} ${p.dim(oneLine(String(data.arguments), 120))}\n`)
        waiting(`running ${data.name}`)
        break
      case 'tool/result': {
        breakLine()
        const message = data.message as ToolResultMessage
        const callId = message.source.kind === 'tool' ? String((message.source as { callId: string }).callId) : ''
        write(`  ${p.dim('←')} ${describeToolResult(message, toolNames.get(callId))}\n`)
        break
      }
      case 'turn/end':
        breakLine()
        status.clear()
        if (io.tty) io.out(`${p.dim(`── ${formatTurnStats(turnStats(options.events(), data.turn as number))}`)}\n`)
        break
    }
  })
  return () => {
    off()
    status.clear()
  }
}
