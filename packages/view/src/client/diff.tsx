import type { MessageView, RequestDiffView } from '../types.js'
import { Section } from './components.js'
import { count, percent, requestLabel } from './format.js'
import { requestHref } from './router.js'
import { MessageCard } from './messages.js'

function PrefixBreakView({ diff }: { diff: RequestDiffView }) {
  const b = diff.prefix.break
  if (!b)
    return (
      <p class="ok prefix-held">The previous request's whole prompt is a prefix of this one: the cache can hold.</p>
    )
  return (
    <div class="prefix-break" data-part={b.part}>
      <p>
        The cache prefix broke at <strong>byte {count(b.byte)}</strong>, in the {b.part} ({b.where}):{' '}
        <strong class="cause">{b.cause}</strong>
      </p>
      <p class="muted">this request, around that byte:</p>
      <pre class="break-excerpt current">
        {b.cutBefore ? <span class="cut">…</span> : null}
        <span class="held">{b.before}</span>
        {b.added === '' ? <span class="nothing">(nothing here)</span> : <ins>{b.added}</ins>}
        <span class="held">{b.after}</span>
        {b.cutAfter ? <span class="cut">…</span> : null}
      </pre>
      <p class="muted">the previous request, at the same byte:</p>
      <pre class="break-excerpt previous">
        {b.cutBefore ? <span class="cut">…</span> : null}
        <span class="held">{b.before}</span>
        {b.removed === '' ? <span class="nothing">(nothing here)</span> : <del>{b.removed}</del>}
        <span class="held">{b.after}</span>
        {b.cutAfter ? <span class="cut">…</span> : null}
      </pre>
    </div>
  )
}

function SystemDiff({ diff }: { diff: RequestDiffView }) {
  if (diff.system.kept) return <p class="muted">System prompt unchanged.</p>
  return (
    <>
      {diff.system.sections.length > 0 ? (
        <p class="section-changes">
          Sections:{' '}
          {diff.system.sections.map((s) => (
            <span class={`tag ${s.kind}`} key={`${s.kind}:${s.name}`}>
              {s.name} {s.kind}
            </span>
          ))}
        </p>
      ) : null}
      <ol class="line-diff">
        {diff.system.lines.map((line, i) => (
          <li key={i} class={line.kind}>
            <span class="mark">
              {line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : line.kind === 'skipped' ? '⋯' : ' '}
            </span>
            <span class="line-text">{line.text}</span>
            {line.section && line.kind !== 'same' ? <span class="tag section">{line.section}</span> : null}
          </li>
        ))}
      </ol>
    </>
  )
}

function ToolsDiff({ diff }: { diff: RequestDiffView }) {
  const t = diff.tools
  if (t.kept) return <p class="muted">Tools unchanged.</p>
  return (
    <ul class="tools-diff">
      {t.added.map((n) => (
        <li class="added" key={`a${n}`}>
          + {n} added
        </li>
      ))}
      {t.removed.map((n) => (
        <li class="removed" key={`r${n}`}>
          − {n} removed
        </li>
      ))}
      {t.moved.map((n) => (
        <li class="moved" key={`m${n}`}>
          ~ {n} moved
        </li>
      ))}
      {t.changed.map((n) => (
        <li class="moved" key={`c${n}`}>
          * {n} changed (description or parameters)
        </li>
      ))}
    </ul>
  )
}

function MessagesDiff({ diff, messages }: { diff: RequestDiffView; messages: MessageView[] }) {
  const m = diff.messages
  return (
    <>
      <p>
        {m.kept
          ? `All ${count(m.keptCount)} messages of the previous request are kept as a prefix`
          : `The first ${count(m.keptCount)} messages are kept; then history differs: ${m.cause ?? ''}`}
        {m.appended.length > 0 ? `; ${count(m.appended.length)} appended.` : '.'}
      </p>
      {m.appended.length > 0 ? (
        <p>
          Appended:{' '}
          {m.appended.map((i) => (
            <a key={i} class="tag" href={`#message-${i + 1}`} onClick={(e) => jump(e, `message-${i + 1}`)}>
              {i + 1}. {messages[i]?.source}
            </a>
          ))}
        </p>
      ) : null}
      {m.replaced.length > 0 ? (
        <details class="replaced" open>
          <summary>
            {m.replaced.length} message{m.replaced.length === 1 ? '' : 's'} of the previous request no longer sent as
            they were
          </summary>
          <ol class="messages">
            {m.replaced.map((message, i) => (
              <MessageCard key={i} message={message} />
            ))}
          </ol>
        </details>
      ) : null}
    </>
  )
}

/** In-page jumps without touching the route in the fragment. */
function jump(event: Event, id: string) {
  event.preventDefault()
  document.getElementById(id)?.scrollIntoView({ block: 'start' })
}

export function DiffView({
  sessionId,
  diff,
  messages,
}: {
  sessionId: string
  diff: RequestDiffView
  messages: MessageView[]
}) {
  return (
    <Section
      title={
        <>
          Compared with <a href={requestHref(sessionId, diff.previous)}>request {requestLabel(diff.previous)}</a>
        </>
      }
      id="diff"
    >
      <p class="prefix-share">
        <strong>{percent(diff.prefix.share)}</strong> of this prompt ({count(diff.prefix.keptBytes)} of{' '}
        {count(diff.prefix.totalBytes)} bytes) repeats the previous request's prompt byte for byte
        {diff.cachedTokens !== undefined ? (
          <> · the provider reported {count(diff.cachedTokens)} cached input tokens</>
        ) : null}
        .
      </p>
      <PrefixBreakView diff={diff} />
      <h3>System prompt</h3>
      <SystemDiff diff={diff} />
      <h3>Tools</h3>
      <ToolsDiff diff={diff} />
      <h3>Messages</h3>
      <MessagesDiff diff={diff} messages={messages} />
    </Section>
  )
}
