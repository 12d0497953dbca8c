import type { ReplacementRow, RequestRow, SessionView, StepRow, TurnRow } from '../../types.js'
import { PrefixChart, TokensChart } from '../charts.js'
import { homeWays, Loading, NotFound, Section, SessionVerified, Text, Verified } from '../components.js'
import type { DataSource } from '../data.js'
import { count, duration, percent, plural, requestLabel, stamp } from '../format.js'
import { useLiveSession } from '../live.js'
import { useRevealed } from '../reveal.js'
import { requestHref } from '../router.js'

function Usage({ row }: { row: RequestRow }) {
  if (!row.usage) return <span class="muted">not reported</span>
  const u = row.usage
  return (
    <span class="usage" title="tokens as the provider reported them: input not cached · cached input · output">
      {count(u.input)} · {count(u.cached)} · {count(u.output)}
    </span>
  )
}

/**
 * The columns of every step's request table: one fixed layout, so the columns line up from step to step, and a
 * header naming each (the values alone — "5 ms (3 ms)", "tool-calls", "74%" — say too little).
 */
const COLUMNS = [
  { key: 'request', label: 'request', title: 'turn.step, and .attempt for a retry' },
  { key: 'model', label: 'model', title: 'provider/model' },
  { key: 'verify', label: 'verified', title: 'rebuilt from the log, it matches its request/digest' },
  { key: 'usage', label: 'tokens in · cached · out', title: 'tokens as the provider reported them' },
  { key: 'latency', label: 'latency (first output)', title: "from the request's digest to the model's whole answer" },
  { key: 'stop', label: 'finish reason', title: 'why the model stopped, as the provider said' },
  { key: 'prefix', label: 'prompt kept', title: "share of this prompt that repeats the previous request's" },
] as const

function RequestsTable({ sessionId, rows }: { sessionId: string; rows: RequestRow[] }) {
  return (
    <table class="requests">
      <colgroup>
        {COLUMNS.map((c) => (
          <col key={c.key} class={`col-${c.key}`} />
        ))}
      </colgroup>
      <thead>
        <tr>
          {COLUMNS.map((c) => (
            <th
              key={c.key}
              scope="col"
              title={c.title}
              class={c.key === 'usage' || c.key === 'latency' ? 'num' : undefined}
            >
              {c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <RequestLine key={row.seq} sessionId={sessionId} row={row} />
        ))}
      </tbody>
    </table>
  )
}

function RequestLine({ sessionId, row }: { sessionId: string; row: RequestRow }) {
  return (
    <tr class="request" data-seq={row.seq} data-request={requestLabel(row)}>
      <td>
        <a href={requestHref(sessionId, row)}>request {requestLabel(row)}</a>
        {row.purpose ? <span class="tag">{row.purpose}</span> : null}
      </td>
      <td>
        {row.provider}/{row.model}
      </td>
      <td class="verify">
        <Verified verify={row.verify} />
      </td>
      <td class="num">
        <Usage row={row} />
      </td>
      <td class="num">
        {duration(row.latencyMs)}
        {row.firstTokenMs !== undefined ? <span class="muted"> ({duration(row.firstTokenMs)})</span> : null}
      </td>
      <td class="stop">{row.stopReason ?? <span class="muted">no finish</span>}</td>
      <td class="prefix">
        {row.prefixShare === undefined ? (
          <span class="muted">first request</span>
        ) : (
          <span class={row.breakCause ? 'bad' : undefined}>{percent(row.prefixShare)}</span>
        )}
        {row.breakCause ? <div class="cause">{row.breakCause}</div> : null}
      </td>
    </tr>
  )
}

function Step({ sessionId, step }: { sessionId: string; step: StepRow }) {
  return (
    <li class="step" data-step={`${step.turn}.${step.step}`}>
      <h3>
        Step {step.step}{' '}
        <span class="muted">
          seq {step.startSeq} · {stamp(step.startTime)}
        </span>
      </h3>
      {step.entered.map((m) => (
        <div class="entered" key={m.seq}>
          <span class="who">{m.source}</span>
          <Text text={m.text} />
        </div>
      ))}
      {step.requests.length > 0 ? (
        <RequestsTable sessionId={sessionId} rows={step.requests} />
      ) : (
        <p class="muted">No request was sent in this step.</p>
      )}
      {step.reasoning ? (
        <details class="reasoning">
          <summary>reasoning</summary>
          <Text text={step.reasoning} />
        </details>
      ) : null}
      {step.toolCalls.map((call) => (
        <div class="tool-call" key={call.callId} data-tool={call.name}>
          <div>
            <span class="tool-name">{call.name}</span> <code>{call.arguments}</code>{' '}
            <span class="muted">{call.callId}</span>
          </div>
          {call.result ? (
            <div class={call.result.isError ? 'tool-result error' : 'tool-result'}>
              <span class="who">
                {call.result.isError ? `error${call.result.code ? ` ${call.result.code}` : ''}` : 'result'}
              </span>
              <Text text={call.result.text} />
            </div>
          ) : (
            <p class="muted">no result recorded</p>
          )}
        </div>
      ))}
      {step.answer ? (
        <div class="answer">
          <span class="who">answer</span>
          <Text text={step.answer} open />
        </div>
      ) : null}
    </li>
  )
}

function Replacement({ row }: { row: ReplacementRow }) {
  return (
    <li class="replacement" data-seq={row.seq}>
      <h3>
        History replaced{' '}
        <span class="muted">
          seq {row.seq} · shadows seqs {row.replaced.join(', ')}
        </span>
      </h3>
      <Text text={row.text} />
    </li>
  )
}

function Turn({ sessionId, turn, replacements }: { sessionId: string; turn: TurnRow; replacements: ReplacementRow[] }) {
  const items = [
    ...turn.steps.map((s) => ({
      seq: s.startSeq,
      node: <Step key={`s${s.startSeq}`} sessionId={sessionId} step={s} />,
    })),
    ...replacements.map((r) => ({ seq: r.seq, node: <Replacement key={`r${r.seq}`} row={r} /> })),
  ].sort((a, b) => a.seq - b.seq)
  return (
    <section class="turn card" data-turn={turn.turn}>
      <h2>
        Turn {turn.turn}{' '}
        <span class={turn.end === 'completed' ? 'ok end' : turn.end === undefined ? 'muted end' : 'bad end'}>
          {turn.end ?? 'open'}
          {turn.interrupted ? ' (no turn/end stored: the writer stopped, or is still writing)' : ''}
        </span>
        <span class="muted">
          {' '}
          seq {turn.startSeq} · {stamp(turn.startTime)}
        </span>
      </h2>
      <ol class="steps">{items.map((i) => i.node)}</ol>
    </section>
  )
}

/** Replacements grouped under the turn whose span holds them. */
function replacementsByTurn(view: SessionView): Map<number, ReplacementRow[]> {
  const out = new Map<number, ReplacementRow[]>()
  const starts = view.turns.map((t) => t.startSeq)
  for (const r of view.replacements) {
    let i = starts.length - 1
    while (i > 0 && starts[i]! > r.seq) i--
    const turn = view.turns[i]?.turn ?? 0
    out.set(turn, [...(out.get(turn) ?? []), r])
  }
  return out
}

/** One session: summary, charts, and the timeline of turns and steps. */
export function SessionPage({ data, id }: { data: DataSource; id: string }) {
  const loaded = useLiveSession(data, id)
  const revealed = useRevealed(loaded.state === 'ready' ? loaded.value.turns.length : 0)
  if (loaded.state === 'loading') return <Loading />
  if (loaded.state === 'error')
    return <NotFound title={`Cannot show session ${id}`} detail={loaded.error} ways={homeWays(data)} />
  const view = loaded.value
  const requests = view.turns.flatMap((t) => t.steps.flatMap((s) => s.requests))
  const byTurn = replacementsByTurn(view)
  const s = view.summary
  return (
    <main data-version={loaded.version}>
      <h1>
        Session <span class="id">{s.id}</span>
      </h1>
      <p class="facts">
        created {stamp(s.createdAt)} UTC · last activity {stamp(s.lastActivity)} UTC · {plural(s.turns, 'turn')} ·{' '}
        {plural(s.requests, 'request')} · {plural(view.events, 'event')} · <SessionVerified state={s.verify} />
        {view.cwd ? (
          <>
            {' '}
            · cwd <code>{view.cwd}</code>
          </>
        ) : null}
      </p>
      {requests.length > 0 ? (
        <div class="charts">
          {/* no card at all when no request reported usage: an empty chart would only take the space */}
          {requests.some((r) => r.usage !== undefined) ? (
            <Section title="Tokens per request" id="tokens-chart">
              <TokensChart requests={requests} />
            </Section>
          ) : null}
          <Section title="Prompt kept from the previous request" id="prefix-chart">
            <PrefixChart requests={requests} />
          </Section>
        </div>
      ) : null}
      {view.undigested.length > 0 ? (
        <p class="muted">
          Steps without a request digest (not checked): {view.undigested.map((u) => `${u.turn}.${u.step}`).join(', ')}
        </p>
      ) : null}
      <div class="timeline">
        {view.turns.length === 0 ? <p class="muted">No turns yet.</p> : null}
        {view.turns.slice(0, revealed).map((turn) => (
          <Turn key={turn.startSeq} sessionId={s.id} turn={turn} replacements={byTurn.get(turn.turn) ?? []} />
        ))}
      </div>
    </main>
  )
}
