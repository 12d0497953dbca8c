/**
 * A realistic agent session as a list of appends, covering every known event type: turns with steps, streamed
 * chunks, assistant messages with tool calls, tool calls and results, todo writes, request header/context/digest,
 * inbox splices, a compaction step whose checkpoint replaces the turn's messages, and a seed marker. Used by the
 * unit tests (through `buildLog`) and by the crash child (through real `Session.append`).
 */
export interface ScriptedAppend {
  readonly type: string
  readonly data: unknown
  readonly opts?: { surfaceOp?: 'append' | { op: 'replace'; start: number; end: number }; sourceEventSeqs?: number[] }
  /** True when the script would call `ctx.sessions.flush` right before this append's effect (a checkpoint). */
  readonly checkpointBefore?: boolean
}

const provider = 'scripted'
const model = 'scripted-1'

function user(id: string, text: string) {
  return { id, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }
}

/** A step's `assistant/message`: the model's answer, appended to the surface from the chunks it streamed. */
function answer(
  turn: number,
  step: number,
  content: readonly object[],
  sourceEventSeqs: number[],
  usage?: { inputTokens: number; outputTokens: number },
): ScriptedAppend {
  const message = { id: `a-${turn}-${step}`, role: 'assistant', content, source: { kind: 'model', provider, model } }
  return {
    type: 'assistant/message',
    data: usage === undefined ? { turn, step, message } : { turn, step, message, usage },
    opts: { surfaceOp: 'append', sourceEventSeqs },
  }
}

/** Builds the appends of `turns` turns; each turn has a tool round and a final answer. */
export function scriptedAppends(turns: number): ScriptedAppend[] {
  const out: ScriptedAppend[] = []
  let seq = 0
  const push = (a: ScriptedAppend): number => {
    out.push(a)
    return seq++
  }
  for (let turn = 1; turn <= turns; turn++) {
    push({ type: 'turn/start', data: { turn } })
    // the seqs of this turn's surface messages, which its compaction step replaces
    const surface: number[] = []
    push({
      type: 'agent/inbox/spliced',
      data: { target: 'next-turn', start: 0, removedCount: 1, inserted: [] },
    })
    for (let step = 1; step <= 2; step++) {
      push({ type: 'step/start', data: { turn, step }, checkpointBefore: true })
      surface.push(
        push({
          type: 'user/message',
          data: user(`u-${turn}-${step}`, `prompt ${turn}.${step} — "quoted" ünïcödé 🚀`),
          opts: { surfaceOp: 'append' },
        }),
      )
      if (step === 1) {
        push({
          type: 'request/header',
          data: {
            header: {
              config: { provider, model },
              system: 'You are a test agent.',
              tools: [{ name: 'read_file', description: 'reads', parameters: { type: 'object' } }],
            },
            reason: turn === 1 ? 'initial' : 'change',
          },
        })
        push({ type: 'request/context', data: { provider, model, contextWindow: 8192 } })
      }
      // a cache placement, as an adapter that places breakpoints has the loop record before the digest
      push({
        type: 'request/cache',
        data: {
          turn,
          step,
          plan: {
            policy: 'bridle',
            breakpoints: [{ at: 'message', index: 0, block: 0, ttl: '5m', reason: 'next-request', tokens: 1200 }],
          },
        },
      })
      push({
        type: 'request/digest',
        data: {
          turn,
          step,
          attempt: 1,
          algorithm: 'sha256',
          request: 'a'.repeat(64),
          config: 'b'.repeat(64),
          system: 'c'.repeat(64),
          tools: 'd'.repeat(64),
          messages: { count: step, chain: 'e'.repeat(64) },
          cache: 'f'.repeat(64),
        },
      })
      const chunkSeqs: number[] = []
      const checkpoint = true
      chunkSeqs.push(
        push({
          type: 'assistant/chunk',
          data: { turn, step, chunk: { type: 'text-delta', text: 'Hel' } },
          checkpointBefore: checkpoint,
        }),
      )
      chunkSeqs.push(push({ type: 'assistant/chunk', data: { turn, step, chunk: { type: 'text-delta', text: 'lo' } } }))
      if (step === 1) {
        const callId = `call-${turn}`
        const toolCall = { type: 'tool-call', id: callId, name: 'read_file', arguments: '{"path":"package.json"}' }
        const usage = { inputTokens: 10, outputTokens: 5 }
        surface.push(push(answer(turn, step, [{ type: 'text', text: 'Hello' }, toolCall], chunkSeqs, usage)))
        const callSeq = push({
          type: 'tool/call',
          data: { turn, step, callId, name: 'read_file', arguments: '{"path":"package.json"}' },
        })
        surface.push(
          push({
            type: 'tool/result',
            data: {
              turn,
              step,
              message: {
                id: `t-${turn}`,
                role: 'user',
                content: [
                  { type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: '{"name":"demo"}' }] },
                ],
                source: { kind: 'tool', callId },
              },
            },
            opts: { surfaceOp: 'append', sourceEventSeqs: [callSeq] },
            checkpointBefore: true,
          }),
        )
        push({ type: 'todo/write', data: { todos: [{ content: 'read package.json', status: 'completed' }] } })
      } else {
        surface.push(push(answer(turn, step, [{ type: 'text', text: 'Hello' }], chunkSeqs)))
      }
      push({ type: 'step/end', data: { turn, step } })
    }
    // A compaction step: the summary request and its chunks, then one checkpoint that replaces the turn's messages.
    push({ type: 'step/start', data: { turn, step: 3 }, checkpointBefore: true })
    const instruction = {
      ...user(`i-${turn}`, 'Summarize the conversation above.'),
      source: { kind: 'plugin', plugin: 'test', form: 'instructions' },
    }
    const record = push({
      type: 'request/compaction',
      data: { turn, step: 3, reason: 'threshold', count: surface.length, config: { provider, model }, instruction },
    })
    push({
      type: 'request/digest',
      data: {
        turn,
        step: 3,
        attempt: 1,
        algorithm: 'sha256',
        purpose: 'compaction',
        request: 'f'.repeat(64),
        config: 'b'.repeat(64),
        system: 'c'.repeat(64),
        tools: 'd'.repeat(64),
        messages: { count: surface.length + 1, chain: '0'.repeat(64) },
      },
    })
    const summaryChunk = push({
      type: 'assistant/chunk',
      data: { turn, step: 3, chunk: { type: 'text-delta', text: 'Read package.json.' } },
      checkpointBefore: true,
    })
    push({
      type: 'user/message',
      data: {
        ...user(`c-${turn}`, `Summary of turn ${turn}: read package.json.`),
        source: { kind: 'plugin', plugin: 'test', form: 'recall' },
      },
      opts: {
        surfaceOp: { op: 'replace', start: surface[0]!, end: surface.at(-1)! },
        sourceEventSeqs: [...surface, record, summaryChunk],
      },
    })
    push({ type: 'step/end', data: { turn, step: 3 } })
    push({ type: 'turn/end', data: { turn, reason: { kind: 'completed' } } })
    push({ type: 'session/end-seed', data: {} })
  }
  return out
}

/** Materializes appends as stored events with seqs from 0 and a deterministic clock. */
export function buildLog(appends: readonly ScriptedAppend[], startTime = 1_700_000_000_000) {
  return appends.map((a, seq) => {
    const event: Record<string, unknown> = { type: a.type, seq, time: startTime + seq, data: a.data }
    if (a.opts?.surfaceOp !== undefined) event.surfaceOp = a.opts.surfaceOp
    if (a.opts?.sourceEventSeqs !== undefined) event.sourceEventSeqs = a.opts.sourceEventSeqs
    return event as { type: string; seq: number; time: number; data: unknown }
  })
}
