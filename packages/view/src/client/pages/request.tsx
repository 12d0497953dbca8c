import type { RequestRow, RequestView, SessionView, SystemSpan } from '../../types.js'
import { Failure, homeWays, Loading, NotFound, Section, Text, Verified } from '../components.js'
import type { DataSource } from '../data.js'
import { DiffView } from '../diff.js'
import { count, duration, requestLabel } from '../format.js'
import { type Loaded, useLive, useLiveSession } from '../live.js'
import { MessageCard } from '../messages.js'
import { requestHref, sessionHref } from '../router.js'

function SystemSections({ view }: { view: RequestView }) {
  const { text, spans, named } = view.system
  if (text === '') return <p class="muted">No system prompt.</p>
  return (
    <>
      {named ? null : (
        <p class="muted">
          This log's request header records no section manifest, so spans are shown unnamed (one per paragraph).
        </p>
      )}
      <ol class="system-sections">
        {spans.map((span: SystemSpan, i) => (
          <li key={i} class={span.name ? 'named' : 'unnamed'} data-section={span.name}>
            <div class="section-head">
              {span.name ? <strong>{span.name}</strong> : <span class="muted">unnamed span</span>}
              <span class="muted">
                {' '}
                chars {count(span.start)}–{count(span.end)}
                {span.order !== undefined ? ` · order ${span.order}` : ''}
                {span.scope ? ` · ${span.scope}` : ''}
              </span>
            </div>
            <Text text={text.slice(span.start, span.end)} />
          </li>
        ))}
      </ol>
    </>
  )
}

function Tools({ view }: { view: RequestView }) {
  if (view.tools.length === 0) return <p class="muted">No tools.</p>
  return (
    <ol class="tools">
      {view.tools.map((tool) => (
        <li key={tool.name} data-tool={tool.name}>
          <span class="tool-name">{tool.name}</span>{' '}
          {tool.description ? <span class="muted">{tool.description.split('\n')[0]}</span> : null}
          <details>
            <summary>schema</summary>
            <pre class="text">{JSON.stringify(tool.parameters, null, 2)}</pre>
          </details>
        </li>
      ))}
    </ol>
  )
}

function Neighbours({ session, view }: { session: SessionView | undefined; view: RequestView }) {
  const rows = session ? requestRows(session) : []
  const at = rows.findIndex((r) => r.seq === view.row.seq)
  const prev = at > 0 ? rows[at - 1] : undefined
  const next = at >= 0 ? rows[at + 1] : undefined
  return (
    <nav class="neighbours">
      {prev ? <a href={requestHref(view.sessionId, prev)}>← request {requestLabel(prev)}</a> : <span />}
      {next ? <a href={requestHref(view.sessionId, next)}>request {requestLabel(next)} →</a> : <span />}
    </nav>
  )
}

/** Every request of a session, in log order. */
const requestRows = (view: SessionView): RequestRow[] => view.turns.flatMap((t) => t.steps.flatMap((s) => s.requests))

/** At most this many requests are offered as links on a page for a request that does not exist. */
const OFFERED = 12

/**
 * The request a URL names (`#/session/ID/request/3.1`, or the seq of its digest in older links), found in the
 * session's view; a session or request that does not exist is a page with links to those that do.
 */
export function RequestRoute({
  data,
  route,
}: {
  data: DataSource
  route: { id: string; label: string } | { id: string; seq: number }
}) {
  const session = useLiveSession(data, route.id)
  const asked = 'label' in route ? route.label : `at seq ${route.seq}`
  if (session.state === 'loading') return <Loading />
  if (session.state === 'error')
    return (
      <NotFound
        title={`No session ${route.id}`}
        detail={`Request ${asked} cannot be shown: ${session.error}`}
        ways={homeWays(data)}
      />
    )
  const rows = requestRows(session.value)
  const row = rows.find((r) => ('label' in route ? requestLabel(r) === route.label : r.seq === route.seq))
  if (!row) {
    const offered = rows.slice(-OFFERED)
    return (
      <NotFound
        title={`Session ${route.id} has no request ${asked}`}
        detail={
          rows.length === 0
            ? 'It has no requests yet.'
            : `Its requests: ${rows.length > offered.length ? `the last ${offered.length} of ${rows.length}` : rows.map(requestLabel).join(', ')}.`
        }
        ways={[
          { href: sessionHref(route.id), text: `session ${route.id}` },
          ...offered.map((r) => ({ href: requestHref(route.id, r), text: `request ${requestLabel(r)}` })),
          ...homeWays(data),
        ]}
      />
    )
  }
  return <RequestPage key={row.seq} data={data} id={route.id} seq={row.seq} session={session} />
}

/** What one request sent, rebuilt from the log, and how it differs from the request before it. */
function RequestPage({
  data,
  id,
  seq,
  session,
}: {
  data: DataSource
  id: string
  seq: number
  session: Loaded<SessionView>
}) {
  const loaded = useLive(
    data,
    `request:${id}:${seq}`,
    () => data.request(id, seq),
    () => false,
  )
  if (loaded.state === 'loading') return <Loading />
  if (loaded.state === 'error')
    return <Failure title={`Cannot show request ${seq} of session ${id}`} error={loaded.error} />
  const view = loaded.value
  const row = view.row
  const config = Object.entries(view.header.config).filter(([k]) => k !== 'provider' && k !== 'model')
  return (
    <main>
      <p class="crumbs">
        <a href="#/">sessions</a> / <a href={sessionHref(id)}>{id}</a> / request {requestLabel(row)}
      </p>
      <h1>
        Request {requestLabel(row)}{' '}
        <span class="muted">
          turn {row.turn} · step {row.step} · attempt {row.attempt}
        </span>
      </h1>
      <Neighbours session={session.state === 'ready' ? session.value : undefined} view={view} />
      {view.error ? <Failure title="This request cannot be rebuilt from the log" error={view.error} /> : null}
      <p class="facts">
        {row.provider}/{row.model} · <Verified verify={row.verify} /> · header seq {view.header.seq} (
        {view.header.reason}){config.map(([k, v]) => ` · ${k} ${JSON.stringify(v)}`).join('')}
        {view.context?.contextWindow !== undefined
          ? ` · context window ${count(view.context.contextWindow as number)}`
          : ''}
        {row.usage
          ? ` · in ${count(row.usage.input)} · cached ${count(row.usage.cached)} · out ${count(row.usage.output)}`
          : ''}
        {` · latency ${duration(row.latencyMs)}`}
        {row.stopReason ? ` · finish reason ${row.stopReason}` : ''}
      </p>
      {view.cache ? (
        <p class="facts cache-plan">
          cache breakpoints ({view.cache.policy}): {view.cache.breakpoints.join(' · ') || 'none'} · predicted read ~
          {count(view.cache.predicted)} tokens
          {view.cache.read !== undefined ? ` · provider read ${count(view.cache.read)}` : ''}
          {view.cache.written !== undefined ? `, wrote ${count(view.cache.written)}` : ''}
          {view.cache.miss ? ` · miss: ${view.cache.miss}` : ''}
        </p>
      ) : null}
      {view.diff ? (
        <DiffView sessionId={id} diff={view.diff} messages={view.messages} />
      ) : (
        <p class="muted">The session's first request: nothing to compare with.</p>
      )}
      <Section
        title={`System prompt (${view.system.spans.length} span${view.system.spans.length === 1 ? '' : 's'})`}
        id="system"
      >
        <SystemSections view={view} />
      </Section>
      <Section title={`Tools (${view.tools.length}, in order)`} id="tools">
        <Tools view={view} />
      </Section>
      <Section title={`Messages (${view.messages.length})`} id="messages">
        <ol class="messages">
          {view.messages.map((message, i) => (
            <MessageCard key={i} message={message} index={i + 1} />
          ))}
        </ol>
      </Section>
      <Section title="Runtime context" id="snapshot">
        {view.snapshot ? (
          <>
            <p class="muted">
              Snapshot{view.snapshot.seq !== undefined ? ` from seq ${view.snapshot.seq}` : ''}, as sent in the messages
              above.
            </p>
            {view.snapshot.sections.length > 0 ? (
              <dl class="snapshot">
                {view.snapshot.sections.map((s) => (
                  <>
                    <dt key={`t${s.name}`}>{s.name}</dt>
                    <dd key={`d${s.name}`}>
                      <Text text={s.text} />
                    </dd>
                  </>
                ))}
              </dl>
            ) : (
              <Text text={view.snapshot.text} />
            )}
          </>
        ) : (
          <p class="muted">No runtime-context snapshot in this request.</p>
        )}
      </Section>
    </main>
  )
}
